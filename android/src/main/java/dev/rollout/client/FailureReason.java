package dev.rollout.client;

import androidx.annotation.NonNull;
import androidx.annotation.Nullable;

/**
 * Why a refresh, or one download of it, was refused: the conformance kit's codes, the same in
 * both clients (Swift: {@code RolloutClient.FailureReason}). The message of a {@link Failure}
 * is for people; the reason is what code and tests compare.
 */
public enum FailureReason {
    /** No response at all: DNS, a refused or reset connection, a file that cannot be read. */
    UNREACHABLE("unreachable"),
    TIMED_OUT("timed-out"),
    /** HTTP 404 or 410, or a missing file. */
    NOT_FOUND("not-found"),
    /** Any other answer but HTTP 200 (a redirect the device did not follow is {@link #REDIRECT_REFUSED}). */
    HTTP_STATUS("http-status"),
    /** Neither https, nor http to a loopback host, nor a file: URL. */
    INSECURE_URL("insecure-url"),
    REDIRECT_REFUSED("redirect-refused"),
    /** Over the size limit of its file ({@link SizeLimits}). */
    TOO_LARGE("too-large"),
    CANCELLED("cancelled"),

    /** A document that does not parse, breaks a wire rule, or names what it does not list. */
    DAMAGED("damaged"),
    /** A signature that does not verify with the pinned key, or is not by a publishing key of the held list. */
    BAD_SIGNATURE("bad-signature"),

    KEYS_REPLAYED("keys-replayed"),
    BELOW_MINIMUM_KEYS_VERSION("below-minimum-keys-version"),
    KEYS_CONFLICT("keys-conflict"),
    WRONG_ROLE("wrong-role"),
    NOT_SIGNED_BY_TRUSTED_ROOTS("not-signed-by-trusted-roots"),
    NOT_SIGNED_BY_OWN_ROOTS("not-signed-by-own-roots"),
    REVOCATION_DROPPED("revocation-dropped"),
    ROOT_CHANGE_UNRECORDED("root-change-unrecorded"),
    REVOKED_KEY("revoked-key"),
    EXPIRED_KEY("expired-key"),
    UNKNOWN_KEY("unknown-key"),
    INDEX_REPLAYED("index-replayed"),
    BELOW_MINIMUM_SEQUENCE("below-minimum-sequence"),
    INDEX_WITHOUT_EXPIRY("index-without-expiry"),
    INDEX_EXPIRED("index-expired"),

    /** The pack's size, SHA-256, checksum or id differs from its manifest entry. */
    PACK_MISMATCH("pack-mismatch"),
    UNSUPPORTED_SCHEMA("unsupported-schema"),
    /** The pack needs a newer app than this one. */
    APP_TOO_OLD("app-too-old"),
    /** Blocked by its manifest, marked failed, or under its locale's kill switch on this device. */
    BLOCKED("blocked"),

    /** A write, fsync or rename of the cache failed: a full disk, a read-only one. */
    STORAGE_FAILED("storage-failed"),
    /** A newer index was accepted meanwhile. */
    SUPERSEDED("superseded"),
    /** The keys given to the client do not parse ({@code ed25519:BASE64}), or its threshold is impossible. */
    MISCONFIGURED("misconfigured");

    private final String code;

    FailureReason(String code) {
        this.code = code;
    }

    /** The kit's code, e.g. {@code "timed-out"}. */
    @NonNull
    public String code() {
        return code;
    }

    /** The reason whose {@link #code()} is {@code code}, or null. */
    @Nullable
    public static FailureReason fromCode(@NonNull String code) {
        for (FailureReason reason : values()) {
            if (reason.code.equals(code)) return reason;
        }
        return null;
    }

    @NonNull
    @Override
    public String toString() {
        return code;
    }
}
