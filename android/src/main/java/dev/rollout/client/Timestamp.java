package dev.rollout.client;

/**
 * Moments as whole seconds since the Unix epoch, written as ISO 8601 UTC ({@code 2026-11-30T05:12:25Z}), with the same
 * grammar as Timestamp.swift. Computed here rather than with java.time's formatters so both clients accept exactly the
 * same texts.
 */
final class Timestamp {
    private static final long SECONDS_PER_DAY = 86_400;

    private Timestamp() {}

    /**
     * The seconds {@code text} names, or null: {@code YYYY-MM-DD}, {@code YYYY-MM-DDTHH:MM:SSZ}, or the latter with a
     * {@code +HH:MM}/{@code -HH:MM} offset instead of Z.
     */
    static Long parse(String text) {
        byte[] chars = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (chars.length < 10 || chars[4] != '-' || chars[7] != '-') return null;
        long y = number(chars, 0, 4);
        long m = number(chars, 5, 2);
        long d = number(chars, 8, 2);
        if (y < 0 || m < 1 || m > 12 || d < 1 || d > daysIn(m, y)) return null;
        long total = daysFromCivil(y, m, d) * SECONDS_PER_DAY;
        if (chars.length == 10) return total;
        if (chars.length < 20 || chars[10] != 'T' || chars[13] != ':' || chars[16] != ':') return null;
        long hh = number(chars, 11, 2);
        long mm = number(chars, 14, 2);
        long ss = number(chars, 17, 2);
        if (hh < 0 || mm < 0 || ss < 0 || hh >= 24 || mm >= 60 || ss >= 60) return null;
        total += hh * 3600 + mm * 60 + ss;
        int rest = chars.length - 19;
        if (rest == 1 && chars[19] == 'Z') return total;
        if (rest != 6 || (chars[19] != '+' && chars[19] != '-') || chars[22] != ':') return null;
        long oh = number(chars, 20, 2);
        long om = number(chars, 23, 2);
        if (oh < 0 || om < 0 || oh >= 24 || om >= 60) return null;
        long offset = oh * 3600 + om * 60;
        long seconds = chars[19] == '+' ? total - offset : total + offset;
        // An offset can carry 0000-01-01 or 9999-12-31 out of the years a timestamp can be written in.
        long first = daysFromCivil(0, 1, 1) * SECONDS_PER_DAY;
        long last = daysFromCivil(9999, 12, 31) * SECONDS_PER_DAY + SECONDS_PER_DAY - 1;
        if (seconds < first || seconds > last) return null;
        return seconds;
    }

    /** {@code seconds} as {@code YYYY-MM-DDTHH:MM:SSZ}. */
    static String format(long seconds) {
        long days = seconds >= 0 ? seconds / SECONDS_PER_DAY : (seconds - (SECONDS_PER_DAY - 1)) / SECONDS_PER_DAY;
        long secondOfDay = seconds - days * SECONDS_PER_DAY;
        long[] civil = civilFromDays(days);
        StringBuilder out = new StringBuilder(20);
        String year = Long.toString(civil[0]);
        if (civil[0] < 1000) {
            for (int i = year.length(); i < 4; i++) out.append('0');
        }
        out.append(year).append('-');
        two(out, civil[1]).append('-');
        two(out, civil[2]).append('T');
        two(out, secondOfDay / 3600).append(':');
        two(out, secondOfDay % 3600 / 60).append(':');
        two(out, secondOfDay % 60).append('Z');
        return out.toString();
    }

    private static StringBuilder two(StringBuilder out, long value) {
        if (value < 10) out.append('0');
        return out.append(value);
    }

    /** The decimal number in {@code count} ASCII digits at {@code from}, or -1. */
    private static long number(byte[] chars, int from, int count) {
        if (from + count > chars.length) return -1;
        long value = 0;
        for (int i = from; i < from + count; i++) {
            if (chars[i] < '0' || chars[i] > '9') return -1;
            value = value * 10 + (chars[i] - '0');
        }
        return value;
    }

    /** The days in {@code month} (1-12) of {@code year}, in the proleptic Gregorian calendar. */
    static long daysIn(long month, long year) {
        if (month == 2) return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28;
        if (month == 4 || month == 6 || month == 9 || month == 11) return 30;
        return 31;
    }

    /** Howard Hinnant's days-from-civil (proleptic Gregorian calendar), as Timestamp.swift computes it. */
    static long daysFromCivil(long year, long month, long day) {
        long y = month <= 2 ? year - 1 : year;
        long era = (y >= 0 ? y : y - 399) / 400;
        long yoe = y - era * 400;
        long doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
        long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        return era * 146_097 + doe - 719_468;
    }

    /** The inverse of {@link #daysFromCivil}: year, month, day. */
    static long[] civilFromDays(long z0) {
        long z = z0 + 719_468;
        long era = (z >= 0 ? z : z - 146_096) / 146_097;
        long doe = z - era * 146_097;
        long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
        long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        long mp = (5 * doy + 2) / 153;
        long d = doy - (153 * mp + 2) / 5 + 1;
        long m = mp < 10 ? mp + 3 : mp - 9;
        return new long[] {yoe + era * 400 + (m <= 2 ? 1 : 0), m, d};
    }
}
