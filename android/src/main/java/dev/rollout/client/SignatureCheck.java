package dev.rollout.client;

import java.util.ArrayList;
import java.util.List;

/**
 * How a device checks signatures, from what the app built in: one pinned key (apps built before
 * key lists; .sig files), or root keys that sign a key list (.sigs files naming their keys), or
 * keys that do not parse (nothing verifies, and a refresh says why).
 */
final class SignatureCheck {
    private enum Mode {
        PINNED,
        ROOTS,
        UNUSABLE
    }

    private final Mode mode;
    /** PINNED: the key; ROOTS: the key an earlier version of the app pinned, or null. */
    private final Ed25519.PublicKey pinned;
    final KeyList.Roots roots;
    final long minimumKeysVersion;
    private final String unusable;

    private SignatureCheck(Mode mode, Ed25519.PublicKey pinned, KeyList.Roots roots, long minimumKeysVersion,
            String unusable) {
        this.mode = mode;
        this.pinned = pinned;
        this.roots = roots;
        this.minimumKeysVersion = minimumKeysVersion;
        this.unusable = unusable;
    }

    static SignatureCheck pinned(String publicKey) {
        Ed25519.PublicKey key = publicKey == null ? null : Ed25519.PublicKey.parse(publicKey);
        if (key == null) return unusable("the public key given to RolloutClient is not ed25519:BASE64");
        return new SignatureCheck(Mode.PINNED, key, null, 0, null);
    }

    static SignatureCheck roots(Trust trust) {
        List<Ed25519.PublicKey> keys = new ArrayList<>();
        for (String text : trust.rootKeys()) {
            Ed25519.PublicKey key = text == null ? null : Ed25519.PublicKey.parse(text);
            if (key == null) return unusable("the root key \"" + text + "\" given to RolloutClient is not ed25519:BASE64");
            keys.add(key);
        }
        KeyList.Roots roots = new KeyList.Roots(keys, trust.threshold());
        int distinct = roots.keys.size();
        // A threshold of 0 would trust any key list: the app's build is wrong, and nothing verifies.
        if (distinct == 0 || trust.threshold() < 1 || trust.threshold() > Math.max(1, distinct)) {
            return unusable(
                    "RolloutClient's Trust needs " + trust.threshold() + " of " + distinct + " distinct root key(s)");
        }
        Ed25519.PublicKey pinned = null;
        if (trust.pinnedKey() != null) {
            pinned = Ed25519.PublicKey.parse(trust.pinnedKey());
            if (pinned == null) {
                return unusable(
                        "the pinned key \"" + trust.pinnedKey() + "\" given to RolloutClient is not ed25519:BASE64");
            }
        }
        return new SignatureCheck(Mode.ROOTS, pinned, roots, trust.minimumKeysVersion(), null);
    }

    private static SignatureCheck unusable(String why) {
        return new SignatureCheck(Mode.UNUSABLE, null, null, 0, why);
    }

    boolean usesKeyList() {
        return mode == Mode.ROOTS;
    }

    boolean isPinned() {
        return mode == Mode.PINNED;
    }

    /** Why nothing verifies (the app's keys do not parse), or null. */
    String unusableReason() {
        return unusable;
    }

    /** The file beside {@code path} that holds its signature in this mode: .sigs on a key list, .sig else. */
    String signatureFile(String path) {
        return usesKeyList() ? SiteLayout.signatures(path) : SiteLayout.signature(path);
    }

    /**
     * Whether {@code signature} vouches for {@code bytes} (the index or a manifest at {@code path}) on
     * this device: the one check of a downloaded file and of a cached slot, in both modes.
     * {@code held} is the key list the device accepted, or null. {@code now} (seconds) is given for a
     * download (a publishing key past its expiry signs no new site) and null for a cached slot (its
     * expiry never takes away packs a device has). On a key list, a slot cached by an app that pinned
     * a key (a legacy .sig) is vouched for by the pinned key until the device holds a list, then by
     * any publishing key the list names (a revoked key is not named).
     */
    void vouch(byte[] bytes, byte[] signature, String path, KeyList held, Long now) throws Refusal {
        switch (mode) {
            case UNUSABLE:
                throw new Refusal(FailureReason.MISCONFIGURED, unusable);
            case PINNED:
                if (!DetachedSignature.verify(signature, bytes, pinned)) {
                    throw new Refusal(FailureReason.BAD_SIGNATURE, path + ": the signature does not verify");
                }
                return;
            default:
                // A list below the app's minimum (held from before an app update raised it, perhaps from
                // before a revocation) vouches for nothing.
                KeyList list = held != null && held.version >= minimumKeysVersion ? held : null;
                // A download is read as .sigs only: a legacy form there would skip the key's expiry. A
                // cached slot holds either form: what parses as .sigs is one.
                if (now != null || isSignatureSet(signature, path)) {
                    if (list == null) {
                        throw new Refusal(FailureReason.BAD_SIGNATURE,
                                path + ": signed by publishing keys, and this device holds no key list yet");
                    }
                    try {
                        KeyChain.publisher(new SignedFile(path, bytes, signature), list, now);
                    } catch (TrustFailure e) {
                        throw Refusal.trust(e);
                    }
                } else if (list != null) {
                    if (KeyChain.legacySigner(bytes, signature, list) == null) {
                        throw new Refusal(FailureReason.BAD_SIGNATURE, path
                                + ": the signature is not by a publishing key of key list version " + list.version);
                    }
                } else if (pinned == null || !DetachedSignature.verify(signature, bytes, pinned)) {
                    throw new Refusal(FailureReason.BAD_SIGNATURE,
                            path + ": the signature is not by the pinned key, and this device holds no key list yet");
                }
        }
    }

    private static boolean isSignatureSet(byte[] signature, String path) {
        try {
            SignatureSet.parse(signature, path);
            return true;
        } catch (DocumentException e) {
            return false;
        }
    }
}
