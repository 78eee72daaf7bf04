package dev.rollout.client;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A refresh's first step on a key list (docs/client.md, "Keys and expiry"): keys.json, and the
 * root-change lists it takes to get there from the roots this device trusts, accepted by
 * KeyChain.accept. A newer list is saved at once, so that its revocations hold even if the site then
 * fails, and the cached slots it no longer vouches for are deleted (the active packs among them are
 * returned); a locale whose active pack went falls back on its previous one, as at start-up. A
 * process killed between the writes finds the slots refused at its next start, by the list it saved.
 */
final class KeyListStep {
    static final class Accepted {
        /** Or null: the app pins one key. */
        final KeyList list;
        final List<PackId> dropped;

        Accepted(KeyList list, List<PackId> dropped) {
            this.list = list;
            this.dropped = dropped;
        }
    }

    private final RolloutClient client;
    private final RefreshRound round;

    KeyListStep(RolloutClient client, RefreshRound round) {
        this.client = client;
        this.round = round;
    }

    /** The site's file at {@code path} with its .sigs. */
    private SignedFile signedFile(String path) throws Refusal {
        byte[] bytes = round.fetch(round.siteUrl(path), SizeLimits.KEY_LIST);
        byte[] signatures = round.fetch(round.siteUrl(SiteLayout.signatures(path)), SizeLimits.SIGNATURE);
        return new SignedFile(path, bytes, signatures);
    }

    Accepted accept(KeyList.Roots roots, long minimumVersion) throws Refusal {
        KeyList held;
        KeyList.Roots anchoredTo;
        synchronized (client.lock) {
            held = client.state.keyList;
            anchoredTo = client.state.anchoredTo;
        }
        KeyChain.Anchor anchor = new KeyChain.Anchor(roots, held, minimumVersion, anchoredTo);
        SignedFile latest = signedFile(SiteLayout.KEYS);
        Map<Long, SignedFile> rotations = new TreeMap<>();
        // A root change the site lacks is left out: the check then says which roots did not sign
        // (docs/conformance.md, trust.json), as for a device that cannot walk to the new root.
        for (long version : KeyChain.rotationsNeeded(latest, anchor)) {
            try {
                rotations.put(version, signedFile(SiteLayout.keys(version)));
            } catch (Refusal missing) {
                // See above.
            }
        }
        KeyList list;
        try {
            list = KeyChain.accept(latest, rotations, anchor);
        } catch (TrustFailure e) {
            throw Refusal.trust(e);
        }
        synchronized (client.lock) {
            try {
                if (list.equals(held)) {
                    // The held list, checked again under the roots this app built in (an app update
                    // changed them): recorded, so the next refresh trusts the list's roots without walking again.
                    if (!roots.equals(anchoredTo)) client.save(next -> next.anchoredTo = roots);
                    return new Accepted(list, Collections.<PackId>emptyList());
                }
                client.save(next -> {
                    next.keyList = list;
                    next.anchoredTo = roots;
                });
                return new Accepted(list, dropSlots(list));
            } catch (IOException e) {
                throw Refusal.storage(e);
            }
        }
    }

    /**
     * Deletes the cached slots {@code list} no longer vouches for, and returns the active packs among
     * them; a locale whose active pack went falls back on its previous one. Call with the lock held.
     */
    private List<PackId> dropSlots(KeyList list) throws IOException {
        // Out of use first, then off the disk: a removal that fails leaves a file the next start
        // refuses, never a pack in memory that the saved list no longer vouches for.
        List<PackId> dropped = new ArrayList<>();
        List<String> unvouched = new ArrayList<>();
        for (String locale : client.storage.children("packs")) {
            for (Slot slot : new Slot[] {Slot.PREVIOUS, Slot.PENDING, Slot.ACTIVE}) {
                String name = slot.file(locale);
                byte[] bytes = client.storage.read(name);
                if (bytes == null) continue;
                PackSlot cached = PackSlot.parse(bytes);
                if (cached != null && vouches(cached, locale, list)) continue;
                unvouched.add(name);
                if (slot == Slot.ACTIVE) {
                    LoadedPack pack = client.active.remove(locale);
                    if (pack != null) dropped.add(pack.id());
                }
            }
        }
        try {
            for (String name : unvouched) client.storage.remove(name);
            for (String locale : client.storage.children("packs")) {
                if (client.storage.exists(Slot.ACTIVE.file(locale))) continue;
                LoadedPack previous = client.verification.verifiedSlot(Slot.PREVIOUS, locale);
                if (previous != null) {
                    client.move(Slot.PREVIOUS, Slot.ACTIVE, locale);
                    client.active.put(locale, previous);
                }
            }
        } finally {
            client.publish();
        }
        return dropped;
    }

    private boolean vouches(PackSlot cached, String locale, KeyList list) {
        try {
            client.signatureCheck.vouch(cached.manifest, cached.signature, SiteLayout.manifest(locale), list, null);
            return true;
        } catch (Refusal refusal) {
            return false;
        }
    }
}
