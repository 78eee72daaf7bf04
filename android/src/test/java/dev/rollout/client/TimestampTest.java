package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** Times are read and written with exactly Timestamp.swift's grammar, so both clients accept the same key lists. */
class TimestampTest {
    @Test
    void readsTheThreeFormsTheSwiftSideReads() {
        assertEquals(1_796_015_545L, Timestamp.parse("2026-11-30T05:12:25Z"));
        assertEquals(1_795_996_800L, Timestamp.parse("2026-11-30"));
        assertEquals(1_796_015_545L - 3 * 3600 - 30 * 60, Timestamp.parse("2026-11-30T05:12:25+03:30"));
        assertEquals(1_796_015_545L + 8 * 3600, Timestamp.parse("2026-11-30T05:12:25-08:00"));
        assertEquals(951_782_400L, Timestamp.parse("2000-02-29"), "a leap day");
        assertEquals(-62_167_219_200L, Timestamp.parse("0000-01-01"));
    }

    @Test
    void refusesEverythingElse() {
        String[] refused = {
            "2026-11-30T05:12:25", "2026-11-30T05:12:25.5Z", "2026-11-30 05:12:25Z", "2026-11-30t05:12:25z",
            "2026-13-01", "2026-02-29", "1900-02-29", "2026-11-31", "2026-11-30T24:00:00Z", "2026-11-30T05:60:00Z",
            "2026-11-30T05:12:60Z", "2026-11-30T05:12:25+0330", "2026-11-30T05:12:25+24:00", "26-11-30", "+2026-11-30",
            "2026-1-30", "２０２６-11-30", "0000-01-01T00:00:00+00:01", "9999-12-31T23:59:59-00:01", "",
        };
        for (String text : refused) assertNull(Timestamp.parse(text), text);
    }

    @Test
    void writesIsoUtcWithFourDigitYearsAndReadsItBack() {
        long[] samples = {0, 1_796_015_545L, 951_782_400L, -1, -62_167_219_200L, 253_402_300_799L};
        String[] texts = {
            "1970-01-01T00:00:00Z", "2026-11-30T05:12:25Z", "2000-02-29T00:00:00Z", "1969-12-31T23:59:59Z",
            "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
        };
        for (int i = 0; i < samples.length; i++) {
            assertEquals(texts[i], Timestamp.format(samples[i]));
            assertEquals(samples[i], Timestamp.parse(texts[i]));
        }
    }
}
