package dev.rollout.client;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One refresh round (docs/client.md, Refresh): the key list, the index and every manifest of the
 * chain verified; what they say taken into effect (1); the packs their plans give this device
 * downloaded and verified (2); and all of them staged in one commit (3), or none. Runs on the thread
 * that called refresh(); takes the client's lock only to change its memory and files.
 */
final class RefreshRound {
    /** A manifest of the chain, fetched and verified, with what its plan gives this device (null: bundled). */
    private static final class FetchedManifest {
        final String locale;
        final byte[] bytes;
        final byte[] signature;
        final LocaleManifest manifest;
        final Integer outcome;
        /** The experiment variant the plan puts this device in (counted only for its own locale), or null. */
        final ExperimentAssignment assignment;

        FetchedManifest(String locale, byte[] bytes, byte[] signature, LocaleManifest manifest, Integer outcome,
                ExperimentAssignment assignment) {
            this.assignment = assignment;
            this.locale = locale;
            this.bytes = bytes;
            this.signature = signature;
            this.manifest = manifest;
            this.outcome = outcome;
        }
    }

    /** A cached slot a manifest forbids (see forbiddenSlots), with the pack it held if it reads. */
    private static final class Removal {
        final String locale;
        final Slot slot;
        final PackId id;

        Removal(String locale, Slot slot, PackId id) {
            this.locale = locale;
            this.slot = slot;
            this.id = id;
        }
    }

    /** A pack of the round, verified and waiting for the commit, with the signed manifest that vouches for it. */
    private static final class ReadyPack {
        final String locale;
        final PackSlot slot;
        final LoadedPack pack;

        ReadyPack(String locale, PackSlot slot, LoadedPack pack) {
            this.locale = locale;
            this.slot = slot;
            this.pack = pack;
        }
    }

    private final RolloutClient client;
    private final String locale;
    private final long lastSequence;
    private final long nowMillis;
    private final List<Change> changes;

    RefreshRound(RolloutClient client, String locale, long lastSequence, long nowMillis, List<Change> changes) {
        this.client = client;
        this.locale = locale;
        this.lastSequence = lastSequence;
        this.nowMillis = nowMillis;
        this.changes = changes;
    }

    RefreshResult run() throws Refusal {
        long time = Math.floorDiv(nowMillis, 1000L);
        KeyListStep.Accepted keys = keyList();
        if (!keys.dropped.isEmpty()) changes.add(new Change(Change.Reason.DROPPED, keys.dropped, locale));
        SiteIndex index = fetchIndex(keys.list, time);
        // Every manifest of the chain first: a refresh acts on one consistent publish or not at all.
        List<FetchedManifest> manifests = fetchManifests(index, keys.list, time);
        List<PackId> forbidden = takeEffect(index, manifests);
        if (!forbidden.isEmpty()) changes.add(new Change(Change.Reason.DROPPED, forbidden, locale));
        List<PackId> dropped = new ArrayList<>(keys.dropped);
        dropped.addAll(forbidden);
        List<ReadyPack> ready = new ArrayList<>();
        List<Failure> failures = new ArrayList<>();
        download(manifests, ready, failures);
        if (!failures.isEmpty()) {
            // A pack held back by another's failure fails for that reason: the round stands or falls whole.
            FailureReason first = failures.get(0).reason();
            for (ReadyPack item : ready) {
                failures.add(new Failure(first, item.pack.id() + ": not staged, another pack of the round failed"));
            }
            return RefreshResult.partial(Collections.<PackId>emptyList(), dropped, failures);
        }
        List<PackId> activated = new ArrayList<>();
        Failure notStaged = commit(ready, superseded(manifests, ready), dropped, activated);
        if (notStaged != null) {
            return RefreshResult.partial(Collections.<PackId>emptyList(), dropped, Collections.singletonList(notStaged));
        }
        if (!activated.isEmpty()) changes.add(new Change(Change.Reason.ACTIVATED, activated, locale));
        List<PackId> ids = new ArrayList<>();
        for (ReadyPack item : ready) ids.add(item.pack.id());
        return ids.isEmpty() ? RefreshResult.upToDate(dropped) : RefreshResult.staged(ids, dropped);
    }

    /**
     * The file at {@code url}, of at most {@code limit} bytes (SizeLimits). Whatever the transport throws
     * becomes a Refusal here, so that a refresh's failure names its reason: an unchecked exception of
     * an app's own transport counts as no response.
     */
    byte[] fetch(URI url, long limit) throws Refusal {
        String why = UrlRule.refusal(url);
        if (why != null) throw new Refusal(FailureReason.INSECURE_URL, why);
        if (Thread.currentThread().isInterrupted()) throw new Refusal(FailureReason.CANCELLED, url + ": cancelled");
        int timeout = client.options.timeoutMillis;
        long started = System.nanoTime();
        byte[] data;
        try {
            data = client.options.transport.fetch(url, limit, timeout);
        } catch (TransportException e) {
            throw new Refusal(e.failure());
        } catch (RuntimeException e) {
            throw new Refusal(FailureReason.UNREACHABLE, url + ": " + e);
        }
        if (Thread.currentThread().isInterrupted()) throw new Refusal(FailureReason.CANCELLED, url + ": cancelled");
        // A transport that ignored its time-out delivers too late: the round has given up on it.
        if (System.nanoTime() - started > timeout * 1_000_000L) {
            throw new Refusal(FailureReason.TIMED_OUT, url + ": timed out after " + timeout + " ms");
        }
        if (data == null) throw new Refusal(FailureReason.UNREACHABLE, url + ": no response");
        // A transport that read past the limit has spent the memory; the file is still refused.
        if (data.length > limit) {
            throw new Refusal(FailureReason.TOO_LARGE, url + ": larger than " + limit + " bytes");
        }
        return data;
    }

    URI siteUrl(String path) {
        return client.manifestUrl.resolve(path);
    }

    /**
     * The key list the site's signatures are checked against (null: the app pins one key), and the
     * active packs a newer list no longer vouches for.
     */
    private KeyListStep.Accepted keyList() throws Refusal {
        SignatureCheck check = client.signatureCheck;
        if (check.unusableReason() != null) throw new Refusal(FailureReason.MISCONFIGURED, check.unusableReason());
        if (check.isPinned()) return new KeyListStep.Accepted(null, Collections.<PackId>emptyList());
        return new KeyListStep(client, this).accept(check.roots, check.minimumKeysVersion);
    }

    private static String lastPathComponent(URI url) {
        // Raw: the name is resolved against the URL again, so it must stay percent-encoded ("index%20v2.json").
        String path = url.getRawPath() == null ? "" : url.getRawPath();
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /** index.json, signed, parsed, and one this device may switch to (not a replay, not expired). */
    private SiteIndex fetchIndex(KeyList list, long time) throws Refusal {
        byte[] bytes = fetch(client.manifestUrl, SizeLimits.INDEX);
        byte[] signature = fetch(siteUrl(client.signatureCheck.signatureFile(lastPathComponent(client.manifestUrl))),
                SizeLimits.SIGNATURE);
        client.signatureCheck.vouch(bytes, signature, SiteLayout.INDEX, list, time);
        SiteIndex index;
        try {
            index = SiteIndex.parse(bytes, SiteLayout.INDEX);
        } catch (DocumentException e) {
            throw Refusal.damaged(e);
        }
        // An expired index changes nothing: the device keeps what it has, and its status says stale.
        try {
            KeyChain.checkIndex(index, time, lastSequence, client.options.minimumIndexSequence,
                    client.signatureCheck.usesKeyList());
        } catch (TrustFailure e) {
            throw Refusal.trust(e);
        }
        return index;
    }

    /**
     * The manifest of every locale of the device's chain, signed, for the locale and sequence the
     * index lists, each resolved for this device.
     */
    private List<FetchedManifest> fetchManifests(SiteIndex index, KeyList list, long time) throws Refusal {
        List<FetchedManifest> manifests = new ArrayList<>();
        for (String name : index.chain(locale)) {
            SiteIndex.Entry entry = index.locales.get(name);
            if (entry == null || !entry.manifest.equals(SiteLayout.manifest(name))) {
                throw new Refusal(FailureReason.DAMAGED,
                        "index.json: the chain of " + locale + " names " + name + ", which it does not list");
            }
            byte[] bytes = fetch(siteUrl(entry.manifest), SizeLimits.MANIFEST);
            byte[] signature = fetch(siteUrl(client.signatureCheck.signatureFile(entry.manifest)), SizeLimits.SIGNATURE);
            client.signatureCheck.vouch(bytes, signature, entry.manifest, list, time);
            LocaleManifest manifest;
            try {
                manifest = LocaleManifest.parse(bytes, entry.manifest);
            } catch (DocumentException e) {
                throw Refusal.damaged(e);
            }
            if (!manifest.locale.equals(name) || manifest.sequence != entry.sequence) {
                throw new Refusal(FailureReason.DAMAGED, entry.manifest + ": sequence " + manifest.sequence + " for "
                        + manifest.locale + ", the index says " + entry.sequence + " for " + name
                        + " (a cache mixed two publishes)");
            }
            Integer outcome = Resolution.outcome(manifest.plan, client.region, client.appVersion, client.installId());
            ExperimentAssignment assignment =
                    ExperimentAssignment.of(manifest.plan, client.region, client.appVersion, client.installId());
            manifests.add(new FetchedManifest(name, bytes, signature, manifest, outcome, assignment));
        }
        return manifests;
    }

    /**
     * The slots of a manifest's locale it forbids: every slot of a locale under its kill switch, a
     * blocked (or unreadable) pack in any slot, and the active pack of a locale that gives this device
     * nothing (an app too old for every pack). A pending pack the plan has moved past is not
     * forbidden: it belongs to an earlier committed round, and only this round's commit replaces it (a
     * round that fails leaves the earlier one whole).
     */
    private List<Removal> forbiddenSlots(FetchedManifest item) {
        List<Removal> removals = new ArrayList<>();
        for (Slot slot : new Slot[] {Slot.PREVIOUS, Slot.PENDING, Slot.ACTIVE}) {
            if (!client.storage.exists(slot.file(item.locale))) continue;
            PackId id = client.verification.storedId(slot, item.locale);
            boolean blocked = id == null || item.manifest.plan.isBlocked(id.contentVersion());
            boolean gone;
            switch (slot) {
                case ACTIVE:
                    gone = item.outcome == null;
                    break;
                case PENDING:
                    gone = id == null;
                    break;
                default:
                    gone = false;
            }
            if (blocked || item.manifest.plan.bundledOnly || gone) removals.add(new Removal(item.locale, slot, id));
        }
        return removals;
    }

    /**
     * Step 1: what the verified index and manifests say takes effect now, even if a download below
     * fails: the sequence, the chains, the blocks and kill switches, and away with the packs they
     * forbid. Returns the active packs that went.
     */
    private List<PackId> takeEffect(SiteIndex index, List<FetchedManifest> manifests) throws Refusal {
        synchronized (client.lock) {
            if (client.state.indexSequence > index.sequence) {
                throw new Refusal(FailureReason.SUPERSEDED, "a newer index was accepted meanwhile");
            }
            List<Removal> removals = new ArrayList<>();
            for (FetchedManifest item : manifests) removals.addAll(forbiddenSlots(item));
            try {
                client.save(next -> {
                    next.indexSequence = index.sequence;
                    next.indexExpires = index.expires;
                    next.chains = new TreeMap<>();
                    next.fallbackChains = new TreeMap<>();
                    for (Map.Entry<String, SiteIndex.Entry> e : index.locales.entrySet()) {
                        next.chains.put(e.getKey(), new ArrayList<>(e.getValue().chain));
                        if (e.getValue().fallbackChain != null) {
                            next.fallbackChains.put(e.getKey(), new ArrayList<>(e.getValue().fallbackChain));
                        }
                    }
                    next.defaultLocale = index.defaultLocale;
                    next.lastRefresh = Math.floorDiv(nowMillis, 1000L);
                    for (Removal removal : removals) {
                        if (removal.slot == Slot.PENDING && removal.id != null) next.staged.remove(removal.id.toString());
                    }
                    // The experiment variant the round's own locale's plan puts the device in, or none.
                    next.experiment = null;
                    for (FetchedManifest item : manifests) {
                        if (item.locale.equals(locale)) next.experiment = item.assignment;
                    }
                    for (FetchedManifest item : manifests) {
                        List<Integer> blocked = new ArrayList<>(item.manifest.plan.blocked);
                        Collections.sort(blocked);
                        next.blocked.put(item.locale, blocked);
                        if (item.manifest.bundleOnly.isEmpty()) {
                            next.bundleOnly.remove(item.locale);
                        } else {
                            next.bundleOnly.put(item.locale, new ArrayList<>(item.manifest.bundleOnly.spellings()));
                        }
                        if (item.manifest.plan.bundledOnly) {
                            next.killed.add(item.locale);
                        } else {
                            next.killed.remove(item.locale);
                        }
                    }
                });
                for (Removal removal : removals) {
                    client.storage.remove(removal.slot.file(removal.locale));
                    if (removal.slot == Slot.ACTIVE) client.active.remove(removal.locale);
                }
            } catch (IOException e) {
                throw Refusal.storage(e);
            } finally {
                client.publish();
            }
            List<PackId> gone = new ArrayList<>();
            for (Removal removal : removals) {
                if (removal.slot == Slot.ACTIVE && removal.id != null) gone.add(removal.id);
            }
            return gone;
        }
    }

    /**
     * Step 2: the packs the plans give this device, all downloaded and verified before any is staged;
     * a pack that fails is a failure, and the others wait.
     */
    private void download(List<FetchedManifest> manifests, List<ReadyPack> ready, List<Failure> failures) {
        for (FetchedManifest item : manifests) {
            if (item.outcome == null) continue;
            PackId id = new PackId(item.locale, item.outcome);
            boolean have;
            boolean failed;
            synchronized (client.lock) {
                LoadedPack current = client.active.get(item.locale);
                have = current != null && current.id().equals(id);
                failed = client.state.failed.contains(id.toString());
            }
            if (have || failed) continue;
            LoadedPack pending = client.committedPending(item.locale);
            if (pending != null && pending.id().equals(id)) continue;
            try {
                ready.add(readyPack(id, item));
            } catch (Refusal refusal) {
                failures.add(new Failure(refusal.failure.reason(), id + ": " + refusal.failure.message()));
            }
        }
    }

    /** Pack {@code id}, which the plan of {@code item} gives this device, verified. */
    private ReadyPack readyPack(PackId id, FetchedManifest item) throws Refusal {
        // Back to the pack it had before (a revert): it is in the cache, verified by the signed manifest that delivered it.
        PackSlot previous = PackSlot.parse(client.storage.read(Slot.PREVIOUS.file(item.locale)));
        if (previous != null) {
            LoadedPack cached = client.verification.verifiedOrNull(previous, item.locale);
            if (cached != null && cached.id().equals(id)) return new ReadyPack(item.locale, previous, cached);
        }
        // entry.url is the one form LocaleManifest.parse accepts (SiteLayout.isSafePackUrl).
        LocaleManifest.PackEntry entry = item.manifest.packs.get(id.contentVersion());
        if (entry == null) {
            throw new Refusal(FailureReason.DAMAGED,
                    item.locale + ": the plan gives " + id + ", the manifest does not list it");
        }
        // Never more than the manifest says: a longer file is not this pack, and is not read past it.
        byte[] bytes = fetch(siteUrl(entry.url), SizeLimits.pack(entry.bytes));
        PackSlot slot = new PackSlot(item.bytes, item.signature, bytes);
        LoadedPack pack = client.verification.verify(slot, item.locale);
        if (!pack.id().equals(id)) {
            throw new Refusal(FailureReason.PACK_MISMATCH, entry.url + " holds " + pack.id() + ", not " + id);
        }
        return new ReadyPack(item.locale, slot, pack);
    }

    /**
     * The pending packs of earlier rounds that this round's plans moved past (another version, the
     * active one, or nothing), or that a pack of this round replaces: they go in the same commit.
     */
    private List<PackId> superseded(List<FetchedManifest> manifests, List<ReadyPack> ready) {
        List<PackId> superseded = new ArrayList<>();
        for (FetchedManifest item : manifests) {
            PackId old = client.verification.storedId(Slot.PENDING, item.locale);
            if (old == null) continue;
            if (hasLocale(ready, item.locale)) {
                superseded.add(old);
                continue;
            }
            boolean keep;
            synchronized (client.lock) {
                LoadedPack current = client.active.get(item.locale);
                keep = item.outcome != null && item.outcome == old.contentVersion()
                        && (current == null || !current.id().equals(old));
            }
            if (!keep) superseded.add(old);
        }
        return superseded;
    }

    private static boolean hasLocale(List<ReadyPack> ready, String locale) {
        for (ReadyPack item : ready) {
            if (item.locale.equals(locale)) return true;
        }
        return false;
    }

    /**
     * Step 3, the commit: every pending file written, then the state that lists them. A process
     * killed before the state is written leaves pending files no start or activation uses. Returns
     * why the packs could not be written (the index and manifests took effect in step 1), or null;
     * {@code activated} receives the packs that replaced an active pack step 1 took away.
     */
    private Failure commit(List<ReadyPack> ready, List<PackId> superseded, List<PackId> dropped, List<PackId> activated)
            throws Refusal {
        synchronized (client.lock) {
            try {
                for (ReadyPack item : ready) client.storage.write(Slot.PENDING.file(item.locale), item.slot.bytes());
                for (PackId old : superseded) {
                    if (!hasLocale(ready, old.locale())) client.storage.remove(Slot.PENDING.file(old.locale()));
                }
                client.save(next -> {
                    for (PackId old : superseded) next.staged.remove(old.toString());
                    for (ReadyPack item : ready) next.staged.add(item.pack.id().toString());
                });
            } catch (IOException e) {
                return new Failure(FailureReason.STORAGE_FAILED, "the packs could not be staged: " + e.getMessage());
            }
            try {
                // A locale whose active pack was just taken away has nothing on screen to keep
                // consistent: its replacement becomes active now.
                for (ReadyPack item : ready) {
                    if (client.active.get(item.locale) != null || !droppedLocale(dropped, item.locale)) continue;
                    client.promotePending(item.locale);
                    client.save(next -> next.staged.remove(item.pack.id().toString()));
                    client.active.put(item.locale, item.pack);
                    activated.add(item.pack.id());
                }
            } catch (IOException e) {
                throw Refusal.storage(e);
            } finally {
                client.publish();
            }
            return null;
        }
    }

    private static boolean droppedLocale(List<PackId> dropped, String locale) {
        for (PackId id : dropped) {
            if (id.locale().equals(locale)) return true;
        }
        return false;
    }
}
