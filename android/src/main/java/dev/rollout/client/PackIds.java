package dev.rollout.client;

/** Pack ids read back from the device's own files, where one that does not parse is simply absent. */
final class PackIds {
    private PackIds() {}

    /** The pack id {@code text} writes, or null. */
    static PackId parse(String text) {
        try {
            return PackId.parse(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
