package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The repository's test files (Tests/Fixtures, the conformance kit among them), found through the root that
 * android/build.sh passes as -Drollout.repo. A file that cannot be read fails the test that asked for it.
 */
final class Fixtures {
    private Fixtures() {}

    /** The repository's root. */
    static Path repo() {
        String root = System.getProperty("rollout.repo");
        if (root == null) throw new AssertionError("run through android/build.sh, which sets -Drollout.repo");
        return Paths.get(root);
    }

    /** The conformance kit's folder (docs/conformance.md). */
    static Path kitFolder() {
        return repo().resolve("Tests/Fixtures/conformance");
    }

    /** A file under Tests/Fixtures, by its path there ({@code hostile/catalogue.json}). */
    static byte[] bytes(String path) {
        try {
            return Files.readAllBytes(repo().resolve("Tests/Fixtures").resolve(path));
        } catch (IOException e) {
            throw new AssertionError(path + ": " + e, e);
        }
    }

    /** A JSON file under Tests/Fixtures, by its path there. */
    static Object json(String path) {
        try {
            return Json.parse(bytes(path));
        } catch (JsonException e) {
            throw new AssertionError(path + ": " + e, e);
        }
    }

    /** A file of the conformance kit, by its name ({@code launches.json}): its top-level object. */
    static Map<String, Object> kit(String name) {
        return Json.object(json("conformance/" + name));
    }

    /** An array of a kit file as its objects (none when it is not an array). */
    static List<Map<String, Object>> objects(Object value) {
        List<Map<String, Object>> out = new ArrayList<>();
        List<Object> items = Json.array(value);
        if (items != null) {
            for (Object item : items) out.add(Json.object(item));
        }
        return out;
    }

    /** The objects of {@code file}'s {@code member} array, which the test needs more than {@code moreThan} of. */
    static List<Map<String, Object>> cases(Map<String, Object> file, String member, int moreThan) {
        List<Map<String, Object>> cases = objects(file.get(member));
        assertTrue(cases.size() > moreThan, "only " + cases.size() + " " + member);
        return cases;
    }
}
