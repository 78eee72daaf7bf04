package dev.rollout.client;

/**
 * The three places a locale's pack can be in the device's cache (docs/client.md, "Activation and
 * rollback on the device"). The names are the file names on the device, as the Swift client writes
 * them: a cache reads the same in both.
 */
enum Slot {
    /** The pack in use. */
    ACTIVE("active"),
    /** Verified by a refresh round, waiting for activatePending() or the next start. */
    PENDING("pending"),
    /** The last good pack before active: what a rollback returns to. */
    PREVIOUS("previous");

    final String fileName;

    Slot(String fileName) {
        this.fileName = fileName;
    }

    static String folder(String locale) {
        return "packs/" + locale;
    }

    /** packs/&lt;locale&gt;/&lt;slot&gt;, relative to the cache directory. */
    String file(String locale) {
        return folder(locale) + "/" + fileName;
    }
}
