package dev.rollout.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The one implementation of what a device trusts (docs/keys.md, "What a device checks"; KeyChain in
 * RolloutModel/Trust/KeyChain.swift, which this follows step for step so both clients decide every trust.json case
 * alike). Times are seconds since the epoch; a null {@code now} means "a cached file, whose key's expiry never
 * matters".
 */
final class KeyChain {
    private KeyChain() {}

    /**
     * What a device trusts before it reads a site: the roots a key list must be signed by, the newest list it
     * accepted, and the oldest list version the app accepts at all.
     */
    static final class Anchor {
        /**
         * The held list's roots; the roots built into the app when it holds no list, or when an app update changed
         * the built-in roots since the list was accepted ({@code anchoredTo}): a team that ships new roots after a
         * root leak means them to count, not the leaked ones the device learnt before.
         */
        final KeyList.Roots roots;
        /** The list the device holds, or null. */
        final KeyList list;
        /** The key list version current when the app was built ({@link Trust#minimumKeysVersion()}). */
        final long minimumVersion;
        /**
         * True when {@code roots} are the built-in ones although the device holds a list: they may be older than
         * the held list's or newer, so root changes are walked from version 1, and the held list counts only if they
         * reach it.
         */
        final boolean rootsBuiltIn;

        /**
         * @param builtIn the roots built into the app
         * @param list the key list the device holds, or null
         * @param minimumVersion the app's minimum key list version (0: none)
         * @param anchoredTo the built-in roots of the app that accepted {@code list}, or null (not recorded: the
         *     list's roots count)
         */
        Anchor(KeyList.Roots builtIn, KeyList list, long minimumVersion, KeyList.Roots anchoredTo) {
            if (list != null && (anchoredTo == null || anchoredTo.equals(builtIn))) {
                roots = list.roots;
                rootsBuiltIn = false;
            } else {
                roots = builtIn;
                rootsBuiltIn = list != null;
            }
            this.list = list;
            this.minimumVersion = minimumVersion;
        }

        /** The version after which root changes are walked: the held list's, unless the built-in roots count. */
        long walksAfter() {
            return rootsBuiltIn || list == null ? 0 : list.version;
        }
    }

    /** The file's {@code .sigs}, or a damaged refusal naming it. */
    static SignatureSet signatures(SignedFile file) throws TrustFailure {
        String source = SiteLayout.signatures(file.path);
        try {
            return SignatureSet.parse(file.signatures, source);
        } catch (DocumentException e) {
            throw TrustFailure.damaged(source, e.getMessage().replace(source + ": ", ""));
        }
    }

    /** The file as a key list, or a damaged refusal naming it. */
    static KeyList keyList(SignedFile file) throws TrustFailure {
        try {
            return KeyList.parse(file.bytes, file.path);
        } catch (DocumentException e) {
            throw TrustFailure.damaged(file.path, e.getMessage().replace(file.path + ": ", ""));
        }
    }

    /**
     * The root-change versions (keys/&lt;n&gt;.json) a device holding {@code anchor} must fetch before it can check
     * {@code latest}: none when the roots it trusts signed {@code latest} (the usual case), else every root change
     * newer than the list it holds. Read from {@code latest} before it is trusted: a lie here only makes the check in
     * {@link #accept} fail.
     */
    static List<Long> rotationsNeeded(SignedFile latest, Anchor anchor) {
        KeyList list;
        SignatureSet signatures;
        try {
            list = keyList(latest);
            signatures = signatures(latest);
        } catch (TrustFailure e) {
            return Collections.emptyList();
        }
        if (signatures.signers(latest.bytes, anchor.roots.keys).size() >= anchor.roots.threshold) {
            return Collections.emptyList();
        }
        List<Long> needed = new ArrayList<>();
        for (long version : list.rootChanges) {
            if (version > anchor.walksAfter() && version < list.version) needed.add(version);
        }
        return needed;
    }

    /**
     * The key list a device holding {@code anchor} accepts from a site: {@code latest} (keys.json) when it is newer
     * than the list held and signed by the threshold of the roots the device trusts, after walking the root changes
     * in {@code rotations} (by version; each signed by the roots before it and by its own; a missing one is skipped),
     * and by the threshold of its own roots. The held list itself when {@code latest} is that list.
     */
    static KeyList accept(SignedFile latest, Map<Long, SignedFile> rotations, Anchor anchor) throws TrustFailure {
        KeyList candidate = keyList(latest);
        KeyList held = anchor.list;
        if (held != null && candidate.version < held.version) {
            throw TrustFailure.keysReplayed(latest.path, candidate.version, held.version);
        }
        // Before the held list is taken as it is: an app updated with a higher minimum refuses the old list it held
        // too.
        if (candidate.version < anchor.minimumVersion) {
            throw TrustFailure.keysBelowMinimum(latest.path, candidate.version, anchor.minimumVersion);
        }
        if (held != null && candidate.version == held.version) {
            if (!candidate.equals(held)) throw TrustFailure.keysConflict(latest.path, candidate.version);
            if (!anchor.rootsBuiltIn) return held;
        }
        KeyList.Roots roots = anchor.roots;
        KeyList previous = anchor.rootsBuiltIn ? null : held;
        // Walk the root changes only when the roots this device trusts did not sign the list.
        if (signatures(latest).signers(latest.bytes, roots.keys).size() < roots.threshold) {
            for (long version : candidate.rootChanges) {
                if (version <= anchor.walksAfter() || version >= candidate.version) continue;
                SignedFile file = rotations.get(version);
                KeyList step = file == null ? null : walkable(file, version, roots);
                // A root list this device cannot check (an app built after it) is skipped, not trusted.
                if (step == null) continue;
                if (previous != null) {
                    keepsRevocations(step, previous, file.path);
                    recordsRootChanges(step, previous, file.path);
                }
                roots = step.roots;
                previous = step;
            }
        }
        signedByRoots(latest, candidate, roots);
        signedByOwnRoots(latest, candidate);
        for (KeyList earlier : new KeyList[] {previous, held}) {
            if (earlier == null) continue;
            keepsRevocations(candidate, earlier, latest.path);
            recordsRootChanges(candidate, earlier, latest.path);
        }
        return candidate;
    }

    /**
     * The root change {@code version} as {@code file} holds it, if a device trusting {@code roots} may walk it: that
     * version, its own rootChanges ending with it, signed by the threshold of {@code roots} and of its own roots.
     */
    private static KeyList walkable(SignedFile file, long version, KeyList.Roots roots) {
        try {
            KeyList step = keyList(file);
            if (step.version != version || step.rootChanges.isEmpty()
                || step.rootChanges.get(step.rootChanges.size() - 1) != version) {
                return null;
            }
            signedByRoots(file, step, roots);
            signedByOwnRoots(file, step);
            return step;
        } catch (TrustFailure e) {
            return null;
        }
    }

    /**
     * A later list keeps the root changes of an earlier one, and records its own: when its roots differ from
     * {@code earlier}'s, rootChanges names a version after {@code earlier}.
     */
    private static void recordsRootChanges(KeyList list, KeyList earlier, String file) throws TrustFailure {
        boolean kept = list.rootChanges.size() >= earlier.rootChanges.size()
            && list.rootChanges.subList(0, earlier.rootChanges.size()).equals(earlier.rootChanges);
        boolean recorded = list.roots.equals(earlier.roots);
        for (long change : list.rootChanges) recorded |= change > earlier.version;
        if (!kept || !recorded) throw TrustFailure.rootChangeUnrecorded(file, list.version, earlier.version);
    }

    private static void signedByRoots(SignedFile file, KeyList list, KeyList.Roots roots) throws TrustFailure {
        SignatureSet signatures = signatures(file);
        Set<String> signed = signatures.signers(file.bytes, roots.keys);
        if (signed.size() >= roots.threshold) return;
        // A publishing key's signature on a key list is the wrong role, said as such: only when that signature is
        // over this file (another file's signatures are just unknown).
        Map<String, Ed25519.PublicKey> publishing = new HashMap<>();
        for (Map.Entry<String, KeyList.PublishingKey> e : list.publishing.entrySet()) {
            if (!roots.keys.containsKey(e.getKey())) publishing.put(e.getKey(), e.getValue().publicKey);
        }
        if (signed.isEmpty()) {
            List<String> byPublishing = sorted(signatures.signers(file.bytes, publishing));
            if (!byPublishing.isEmpty()) throw TrustFailure.wrongRole(file.path, byPublishing.get(0), "publishing");
        }
        throw TrustFailure.rootsDidNotSign(file.path, sorted(signed), roots.threshold, roots.ids());
    }

    private static void signedByOwnRoots(SignedFile file, KeyList list) throws TrustFailure {
        Set<String> signed = signatures(file).signers(file.bytes, list.roots.keys);
        if (signed.size() < list.roots.threshold) {
            throw TrustFailure.ownRootsDidNotSign(file.path, sorted(signed), list.roots.threshold);
        }
    }

    private static void keepsRevocations(KeyList list, KeyList earlier, String file) throws TrustFailure {
        for (String id : earlier.revoked.keySet()) {
            if (!list.revoked.containsKey(id)) throw TrustFailure.revocationDropped(file, id);
        }
    }

    /**
     * The publishing key that vouches for an index or a manifest under {@code list}: a signature that verifies, by a
     * listed key that is not revoked and, when {@code now} is given, not expired. A cached pack is checked without
     * {@code now}: a key's expiry stops new sites, never the packs a device already has. Throws the most telling
     * reason when no signature qualifies.
     *
     * @return the id of the key that vouches
     */
    static String publisher(SignedFile file, KeyList list, Long now) throws TrustFailure {
        SignatureSet signatures = signatures(file);
        TrustFailure failure = null;
        List<String> ids = new ArrayList<>();
        for (SignatureSet.Entry entry : signatures.entries) {
            ids.add(entry.keyId);
            TrustFailure refusal = signingRefusal(entry.keyId, list, now, file.path);
            if (refusal == null) {
                if (list.publishing.get(entry.keyId).publicKey.verify(entry.signature, file.bytes)) return entry.keyId;
                continue;
            }
            switch (refusal.kind()) {
                // A revoked key has no public key left to check its signature with: naming it is enough.
                case REVOKED_KEY:
                    failure = refusal;
                    break;
                case WRONG_ROLE:
                case EXPIRED_KEY:
                    Ed25519.PublicKey key = list.roots.keys.get(entry.keyId);
                    if (key == null) key = list.publishing.get(entry.keyId).publicKey;
                    if (failure == null && key.verify(entry.signature, file.bytes)) failure = refusal;
                    break;
                default:
                    break;
            }
        }
        throw failure != null ? failure : TrustFailure.unknownKey(file.path, ids);
    }

    /**
     * Why the key {@code keyId} may not sign an index or a manifest under {@code list} at {@code now} (null: it may):
     * revoked, a root key, not listed, or expired ({@code now} null: expiry not checked).
     */
    static TrustFailure signingRefusal(String keyId, KeyList list, Long now, String file) {
        KeyList.Revocation revocation = list.revoked.get(keyId);
        if (revocation != null) return TrustFailure.revokedKey(file, keyId, revocation.reason);
        if (list.roots.keys.containsKey(keyId)) return TrustFailure.wrongRole(file, keyId, "root");
        KeyList.PublishingKey key = list.publishing.get(keyId);
        if (key == null) return TrustFailure.unknownKey(file, Collections.singletonList(keyId));
        if (now != null && key.expires <= now) return TrustFailure.expiredKey(file, keyId, key.expires);
        return null;
    }

    /**
     * The listed, unrevoked publishing key whose legacy signature (a {@code .sig}, no key id) verifies over
     * {@code bytes}, or null: how a device on a key list reads a pack cached by an app version that pinned one key.
     */
    static String legacySigner(byte[] bytes, byte[] signature, KeyList list) {
        for (Map.Entry<String, KeyList.PublishingKey> e : list.publishing.entrySet()) {
            if (signingRefusal(e.getKey(), list, null, "") == null
                && DetachedSignature.verify(signature, bytes, e.getValue().publicKey)) {
                return e.getKey();
            }
        }
        return null;
    }

    /**
     * What makes an index one a device may switch to: at least {@code accepted} (the newest it accepted) and
     * {@code builtInMinimum} (the app's minimum sequence), and not expired at {@code now}. {@code requireExpiry}: a
     * device on a key list accepts only an index that expires; a device pinned to one key checks expires when the
     * index has it.
     */
    static void checkIndex(SiteIndex index, long now, long accepted, long builtInMinimum, boolean requireExpiry)
        throws TrustFailure {
        checkIndex(index.sequence, index.expires, now, accepted, builtInMinimum, requireExpiry);
    }

    /** {@link #checkIndex(SiteIndex, long, long, long, boolean)} on an index's sequence and expiry (or null). */
    static void checkIndex(long sequence, Long expires, long now, long accepted, long builtInMinimum,
                           boolean requireExpiry) throws TrustFailure {
        if (sequence < accepted) throw TrustFailure.sequenceTooOld(sequence, accepted, false);
        if (sequence < builtInMinimum) throw TrustFailure.sequenceTooOld(sequence, builtInMinimum, true);
        if (expires == null) {
            if (requireExpiry) throw TrustFailure.indexWithoutExpiry();
            return;
        }
        if (expires <= now) throw TrustFailure.indexExpired(expires, now);
    }

    private static List<String> sorted(Set<String> ids) {
        List<String> list = new ArrayList<>(ids);
        Collections.sort(list);
        return list;
    }
}
