package dev.rollout.client;

/**
 * A document a device refuses: an index, a manifest, a plan or a pack that does not parse or breaks a wire rule. The
 * message starts with the file's name, as the Swift client's errors do, because the device prints it.
 */
final class DocumentException extends Exception {
    private static final long serialVersionUID = 1L;

    DocumentException(String message) {
        super(message);
    }

    /** {@code source: why}. */
    static DocumentException in(String source, String why) {
        return new DocumentException(source + ": " + why);
    }

    /** A document that is not JSON, positioned as an editor shows it: {@code source:line:column: why}. */
    static DocumentException notJson(String source, JsonException e) {
        return new DocumentException(source + ":" + e.line() + ":" + e.column() + ": " + e.reason());
    }
}
