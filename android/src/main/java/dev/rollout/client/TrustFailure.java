package dev.rollout.client;

import java.util.List;

/**
 * Why a device refuses a key list, an index or a manifest (docs/keys.md, "What a device checks"; TrustFailure in
 * RolloutModel/Trust/KeyChain.swift). {@link #code()} is the stable name the conformance kit uses; the message is the
 * sentence a person reads, the same words as the Swift client's.
 */
final class TrustFailure extends Exception {
    private static final long serialVersionUID = 1L;

    /** The refusals, each with its kit code. */
    enum Kind {
        /** A file, or its signatures, could not be read as its format. */
        DAMAGED("damaged"),
        /** Fewer of the roots this device trusts signed the key list than its threshold. */
        ROOTS_DID_NOT_SIGN("not-signed-by-trusted-roots"),
        /** The key list is not signed by enough of the roots it lists itself. */
        OWN_ROOTS_DID_NOT_SIGN("not-signed-by-own-roots"),
        /** A key list older than the one the device holds: a replay. */
        KEYS_REPLAYED("keys-replayed"),
        /** A key list older than the minimum built into the app. */
        KEYS_BELOW_MINIMUM("below-minimum-keys-version"),
        /** Root keys changed, or root changes rewritten, without the version recorded in rootChanges. */
        ROOT_CHANGE_UNRECORDED("root-change-unrecorded"),
        /** Another key list with the version the device holds. */
        KEYS_CONFLICT("keys-conflict"),
        /** A newer key list that no longer revokes a key an earlier one revoked. */
        REVOCATION_DROPPED("revocation-dropped"),
        /** Signed by a key the device's key list revoked. */
        REVOKED_KEY("revoked-key"),
        /** Signed by a publishing key past its expiry. */
        EXPIRED_KEY("expired-key"),
        /** Signed by a key of another role (a root key signing an index, a publishing key a key list). */
        WRONG_ROLE("wrong-role"),
        /** No signature by a key the key list names (or only signatures that do not verify). */
        UNKNOWN_KEY("unknown-key"),
        /** The index is past its expires. */
        INDEX_EXPIRED("index-expired"),
        /** The index has no expires, which a device on a key list requires. */
        INDEX_WITHOUT_EXPIRY("index-without-expiry"),
        /** An index older than the newest the device accepted. */
        INDEX_REPLAYED("index-replayed"),
        /** An index older than the app's built-in minimum sequence. */
        BELOW_MINIMUM_SEQUENCE("below-minimum-sequence");

        final String code;

        Kind(String code) {
            this.code = code;
        }
    }

    private final Kind kind;

    private TrustFailure(Kind kind, String message) {
        // No stack trace: a refusal is an outcome, reported by its code and message, never debugged from a trace.
        super(message, null, false, false);
        this.kind = kind;
    }

    /** Which check refused. */
    Kind kind() {
        return kind;
    }

    /** The kit's code, e.g. {@code "revoked-key"}. */
    String code() {
        return kind.code;
    }

    /** The refresh failure reason with the same code. */
    FailureReason reason() {
        return FailureReason.fromCode(kind.code);
    }

    private static String ids(List<String> list) {
        return list.isEmpty() ? "none" : String.join(", ", list);
    }

    /** A file, or its signatures, that could not be read as its format. */
    static TrustFailure damaged(String file, String why) {
        return new TrustFailure(Kind.DAMAGED, file + ": " + why);
    }

    /** Fewer of the roots this device trusts ({@code roots}, ids) signed {@code file} than {@code threshold}. */
    static TrustFailure rootsDidNotSign(String file, List<String> signed, long threshold, List<String> roots) {
        return new TrustFailure(Kind.ROOTS_DID_NOT_SIGN,
            file + ": signed by " + signed.size() + " of the root keys this device trusts (" + ids(roots) + "), "
                + threshold + " needed: not a key list from this app's owners");
    }

    /** {@code file} is signed by fewer of the roots it lists itself than its threshold. */
    static TrustFailure ownRootsDidNotSign(String file, List<String> signed, long threshold) {
        return new TrustFailure(Kind.OWN_ROOTS_DID_NOT_SIGN,
            file + ": signed by " + signed.size() + " of the root keys it lists, " + threshold + " needed");
    }

    /** A key list older than the one the device holds. */
    static TrustFailure keysReplayed(String file, long version, long held) {
        return new TrustFailure(Kind.KEYS_REPLAYED,
            file + ": version " + version + " is older than version " + held
                + ", which this device already accepted: a replayed key list");
    }

    /** A key list older than the minimum built into the app. */
    static TrustFailure keysBelowMinimum(String file, long version, long minimum) {
        return new TrustFailure(Kind.KEYS_BELOW_MINIMUM,
            file + ": version " + version + " is older than version " + minimum
                + ", the minimum built into this app: an old key list, from before a revocation perhaps");
    }

    /** A list whose roots differ from version {@code since}'s, or that rewrites its rootChanges, unrecorded. */
    static TrustFailure rootChangeUnrecorded(String file, long version, long since) {
        return new TrustFailure(Kind.ROOT_CHANGE_UNRECORDED,
            file + ": version " + version + " changes the root keys of version " + since
                + ", or rewrites its rootChanges, without recording the change in rootChanges: devices built with "
                + "older roots could never reach it");
    }

    /** Another key list with the version the device holds. */
    static TrustFailure keysConflict(String file, long version) {
        return new TrustFailure(Kind.KEYS_CONFLICT,
            file + ": another key list with version " + version
                + ", the one this device holds: the root keys signed two lists with one version");
    }

    /** A newer key list that no longer revokes {@code keyId}. */
    static TrustFailure revocationDropped(String file, String keyId) {
        return new TrustFailure(Kind.REVOCATION_DROPPED,
            file + ": no longer revokes " + keyId + ", which an earlier key list revoked; a revocation is for good");
    }

    /** Signed by a revoked key ({@code reason} as the list gives it, or empty). */
    static TrustFailure revokedKey(String file, String keyId, String reason) {
        return new TrustFailure(Kind.REVOKED_KEY,
            file + ": signed by " + keyId + ", a revoked publishing key"
                + (reason.isEmpty() ? "" : " (" + reason + ")"));
    }

    /** Signed by a publishing key that expired at {@code expires}. */
    static TrustFailure expiredKey(String file, String keyId, long expires) {
        return new TrustFailure(Kind.EXPIRED_KEY,
            file + ": signed by publishing key " + keyId + ", which expired at " + Timestamp.format(expires));
    }

    /** Signed by a key of another {@code role} ("root" or "publishing"). */
    static TrustFailure wrongRole(String file, String keyId, String role) {
        return new TrustFailure(Kind.WRONG_ROLE,
            file + ": signed by " + keyId + ", a " + role + " key, which may not sign this file");
    }

    /** No valid signature by a publishing key; {@code keyIds} are the ids the signatures name. */
    static TrustFailure unknownKey(String file, List<String> keyIds) {
        return new TrustFailure(Kind.UNKNOWN_KEY,
            file + ": no valid signature by a publishing key of the key list (signed by " + ids(keyIds)
                + "): the file or its signatures were changed, or another key signed it");
    }

    /** The index expired at {@code expires}, at or before {@code now}. */
    static TrustFailure indexExpired(long expires, long now) {
        return new TrustFailure(Kind.INDEX_EXPIRED,
            "index.json: expired at " + Timestamp.format(expires) + " (now " + Timestamp.format(now)
                + "): a frozen or replayed site");
    }

    /** The index has no expires, which a device on a key list requires. */
    static TrustFailure indexWithoutExpiry() {
        return new TrustFailure(Kind.INDEX_WITHOUT_EXPIRY,
            "index.json: has no \"expires\"; a device on a key list accepts only an index that expires");
    }

    /** An index older than {@code minimum}: the newest accepted ({@code builtIn} false) or the app's minimum. */
    static TrustFailure sequenceTooOld(long sequence, long minimum, boolean builtIn) {
        String older = "index.json: sequence " + sequence + " is older than " + minimum;
        return builtIn
            ? new TrustFailure(
                Kind.BELOW_MINIMUM_SEQUENCE, older + ", the minimum built into this app: an old copy of the site")
            : new TrustFailure(Kind.INDEX_REPLAYED, older + ", already accepted: a stale cache or a replay");
    }
}
