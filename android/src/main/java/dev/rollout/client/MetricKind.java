package dev.rollout.client;

/** The counters a metrics CSV holds, as {@code rollout metrics ingest --kind} reads them (docs/metrics.md). */
public enum MetricKind {
    /** Sessions and crashes. */
    CRASH("sessions", "crashes"),
    /** Lookups and the lookups that fell back from the device's own pack. */
    FALLBACK("lookups", "fallbacks");

    final String exposures;
    final String events;

    MetricKind(String exposures, String events) {
        this.exposures = exposures;
        this.events = events;
    }
}
