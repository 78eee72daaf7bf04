package dev.rollout.device;

/** RolloutError as rollout device raises it: a message, its exit code and its --json code (RolloutError.swift). */
final class DeviceError extends Exception {
    private static final long serialVersionUID = 1L;

    final int exitCode;
    final String code;

    private DeviceError(int exitCode, String code, String message) {
        super(message, null, false, false);
        this.exitCode = exitCode;
        this.code = code;
    }

    static DeviceError usage(String message) {
        return new DeviceError(64, "usage", message);
    }

    static DeviceError missing(String message) {
        return new DeviceError(66, "missing", message);
    }

    static DeviceError io(String message) {
        return new DeviceError(74, "io-error", message);
    }

    static DeviceError internal(String message) {
        return new DeviceError(70, "internal", message);
    }
}
