package dev.rollout.client;

/** Where and why a document is not acceptable JSON: the parser's refusal, with the line and column it stopped at. */
final class JsonException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String reason;
    private final int line;
    private final int column;

    JsonException(String reason, int line, int column) {
        super("line " + line + ", column " + column + ": " + reason);
        this.reason = reason;
        this.line = line;
        this.column = column;
    }

    /** What is wrong, without the position. */
    String reason() {
        return reason;
    }

    /** The line (from 1) where the parser stopped. */
    int line() {
        return line;
    }

    /** The column (from 1, in characters rather than bytes, as an editor counts) where the parser stopped. */
    int column() {
        return column;
    }
}
