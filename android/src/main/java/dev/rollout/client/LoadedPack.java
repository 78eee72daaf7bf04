package dev.rollout.client;

import java.util.List;
import java.util.Map;

/** A verified pack in the device's memory, with the bundle-only patterns of the signed manifest that delivered it. */
final class LoadedPack {
    final Pack pack;
    final KeyPatterns bundleOnly;

    LoadedPack(Pack pack, KeyPatterns bundleOnly) {
        this.pack = pack;
        this.bundleOnly = bundleOnly;
    }

    PackId id() {
        return pack.id();
    }

    /**
     * The strings as a device may show them: without the keys the app keeps in its bundle (the
     * patterns of its own manifest and of the latest one, {@code latest}, or null), even if the pack
     * has them (docs/policy.md, "Bundle-only keys").
     */
    Map<String, String> shown(List<String> latest) {
        KeyPatterns patterns = latest == null ? bundleOnly : bundleOnly.plus(KeyPatterns.valid(latest));
        return patterns.isEmpty() ? pack.strings() : patterns.removing(pack.strings());
    }
}
