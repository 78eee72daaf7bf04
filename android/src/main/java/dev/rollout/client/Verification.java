package dev.rollout.client;

import java.util.Map;

/**
 * The checks every pack passes before the device stores or uses it: the manifest's signature
 * (against the key list the device holds), the pack's digest and size as that manifest lists them,
 * strict parsing, the checksum, locale, a schema this app understands, its minAppVersion, and
 * neither blocked nor marked failed on this device.
 */
final class Verification {
    private final RolloutClient client;

    Verification(RolloutClient client) {
        this.client = client;
    }

    /** The pack in {@code slot} of {@code locale} if every check passes, or null. */
    LoadedPack verifiedSlot(Slot slot, String locale) {
        PackSlot stored = PackSlot.parse(client.storage.read(slot.file(locale)));
        return stored == null ? null : verifiedOrNull(stored, locale);
    }

    LoadedPack verifiedOrNull(PackSlot slot, String locale) {
        try {
            return verify(slot, locale);
        } catch (Refusal refusal) {
            return null;
        }
    }

    LoadedPack verify(PackSlot slot, String locale) throws Refusal {
        KeyList held;
        synchronized (client.lock) {
            held = client.state.keyList;
        }
        client.signatureCheck.vouch(slot.manifest, slot.signature, SiteLayout.manifest(locale), held, null);
        LocaleManifest manifest;
        try {
            manifest = LocaleManifest.parse(slot.manifest, "manifests/" + locale + ".json");
        } catch (DocumentException e) {
            throw Refusal.damaged(e);
        }
        if (!manifest.locale.equals(locale)) {
            throw new Refusal(FailureReason.DAMAGED, "the manifest is for " + manifest.locale + ", not " + locale);
        }
        String digest = Sha256.hex(Sha256.digest(slot.pack));
        Integer version = null;
        LocaleManifest.PackEntry entry = null;
        for (Map.Entry<Integer, LocaleManifest.PackEntry> candidate : manifest.packs.entrySet()) {
            if (candidate.getValue().sha256.equals(digest)) {
                version = candidate.getKey();
                entry = candidate.getValue();
                break;
            }
        }
        if (entry == null || entry.bytes != slot.pack.length) {
            throw new Refusal(FailureReason.PACK_MISMATCH, locale + ": the pack is not the one its manifest lists");
        }
        Pack pack = check(slot.pack, entry, new PackId(locale, version));
        if (manifest.plan.isBlocked(version)) {
            throw new Refusal(FailureReason.BLOCKED, locale + "@" + version + " is blocked");
        }
        return new LoadedPack(pack, manifest.bundleOnly);
    }

    /**
     * The checks against its manifest entry (those {@code rollout verify-site} makes too, in the
     * order Swift's PackEntryCheck makes them), then this device's own.
     */
    private Pack check(byte[] bytes, LocaleManifest.PackEntry entry, PackId id) throws Refusal {
        if (bytes.length != entry.bytes || !Sha256.hex(Sha256.digest(bytes)).equals(entry.sha256)) {
            throw new Refusal(FailureReason.PACK_MISMATCH, id + ": size or SHA-256 differs from the manifest");
        }
        if (!client.options.schemaVersions.contains(entry.schemaVersion)) {
            throw new Refusal(FailureReason.UNSUPPORTED_SCHEMA,
                    id + ": schemaVersion " + entry.schemaVersion + " is not one this app understands");
        }
        Pack pack;
        try {
            pack = Pack.parse(bytes, id.toString(), true);
        } catch (DocumentException e) {
            throw Refusal.damaged(e);
        }
        if (!entry.checksum.equals(pack.declaredChecksum()) || !pack.checksum().equals(entry.checksum)) {
            throw new Refusal(FailureReason.PACK_MISMATCH, id + ": the checksum differs from the manifest");
        }
        if (!pack.id().equals(id) || !client.options.schemaVersions.contains(pack.schemaVersion())) {
            // The entry's schema was one this app understands (checked first); the pack's own may not be.
            throw new Refusal(pack.id().equals(id) ? FailureReason.UNSUPPORTED_SCHEMA : FailureReason.PACK_MISMATCH,
                    id + ": the pack says it is " + pack.id() + " (schema " + pack.schemaVersion() + ")");
        }
        if (client.appVersion == null || pack.minAppVersion().compareTo(client.appVersion) > 0) {
            throw new Refusal(FailureReason.APP_TOO_OLD,
                    id + " needs app " + pack.minAppVersion() + ", this is " + client.appVersionText);
        }
        boolean refused;
        synchronized (client.lock) {
            DeviceState state = client.state;
            java.util.List<Integer> blocked = state.blocked.get(id.locale());
            refused = (blocked != null && blocked.contains(id.contentVersion()))
                    || state.failed.contains(pack.id().toString())
                    || state.killed.contains(id.locale());
        }
        if (refused) {
            throw new Refusal(FailureReason.BLOCKED,
                    pack.id() + " is blocked, failed or under its locale's kill switch on this device");
        }
        return pack;
    }

    /**
     * The id of the pack stored in {@code slot} of {@code locale}, read without verifying it (start-up
     * and refresh do that); or null.
     */
    PackId storedId(Slot slot, String locale) {
        String name = slot.file(locale);
        PackSlot stored = PackSlot.parse(client.storage.read(name));
        if (stored == null) return null;
        try {
            return Pack.parse(stored.pack, name, false).id();
        } catch (DocumentException e) {
            return null;
        }
    }
}
