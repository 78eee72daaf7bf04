package dev.rollout.client;

import java.net.URI;
import java.util.Locale;

/**
 * Which URLs a device fetches (docs/client.md, Refresh): https anywhere, http only to a loopback
 * host, file: (a site in a local directory); and where a server may redirect it: the same, except
 * a file.
 */
final class UrlRule {
    private UrlRule() {}

    /** Null when {@code url} may be fetched, else why not. */
    static String refusal(URI url) {
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        switch (scheme) {
            case "https":
            case "file":
                return null;
            case "http":
                if (isLoopback(url.getHost() == null ? "" : url.getHost())) return null;
                return url + ": plain http is allowed only to a loopback host (127.0.0.0/8, ::1, localhost); use https";
            default:
                return url + ": only https (http to a loopback host, or a file URL) is fetched";
        }
    }

    /** Null when a server may send the device to {@code url}, else why not. */
    static String redirectRefusal(URI url) {
        if ("file".equalsIgnoreCase(url.getScheme())) return url + ": a server cannot send the device to a file";
        return refusal(url);
    }

    /**
     * localhost, ::1, or an IPv4 literal in 127.0.0.0/8 written as the system reads it without a
     * lookup: four decimal octets of at most 255, no leading zeros (127.0.0.08 is a name a resolver
     * answers, not an address), nothing after them (127.0.0.1.evil.com).
     */
    static boolean isLoopback(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        if (h.equals("localhost") || h.equals("::1") || h.equals("[::1]")) return true;
        String[] octets = h.split("\\.", -1);
        if (octets.length != 4 || !octets[0].equals("127")) return false;
        for (String octet : octets) {
            if (octet.isEmpty() || octet.length() > 3) return false;
            for (int i = 0; i < octet.length(); i++) {
                if (octet.charAt(i) < '0' || octet.charAt(i) > '9') return false;
            }
            if (octet.length() > 1 && octet.charAt(0) == '0') return false;
            if (Integer.parseInt(octet) > 255) return false;
        }
        return true;
    }
}
