package android.content.res;

/**
 * Stand-in for android.content.res.Resources (API 1): see ../../../README.md. The glue constructs
 * none; the implicit constructor is the tests' (Android's takes an AssetManager).
 */
public class Resources {
    /** API 1. */
    public String getString(int id) throws NotFoundException {
        throw new RuntimeException("Stub!");
    }

    /** API 1. */
    public CharSequence getQuantityText(int id, int quantity) throws NotFoundException {
        throw new RuntimeException("Stub!");
    }

    /** API 1. */
    public Configuration getConfiguration() {
        throw new RuntimeException("Stub!");
    }

    /** API 1. */
    public int getIdentifier(String name, String defType, String defPackage) {
        throw new RuntimeException("Stub!");
    }

    /** API 1. */
    public static class NotFoundException extends RuntimeException {
        public NotFoundException() {}

        public NotFoundException(String name) {}
    }
}
