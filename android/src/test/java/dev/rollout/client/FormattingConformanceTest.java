package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** formatting.json of the conformance kit (docs/conformance.md): what string(key, arguments) shows. */
class FormattingConformanceTest {
    static Object vectors(String name) throws Exception {
        Path path = Paths.get(System.getProperty("rollout.repo", "."), "Tests", "Fixtures", "conformance", name);
        return Json.parse(Files.readAllBytes(path));
    }

    @Test
    void everyMessageFormatsAsTheVectorsSay() throws Exception {
        List<Object> cases = Json.array(Json.object(vectors("formatting.json")).get("cases"));
        assertFalse(cases.isEmpty());
        for (Object c : cases) {
            Map<String, Object> vector = Json.object(c);
            Map<String, String> arguments = new LinkedHashMap<>();
            for (Map.Entry<String, Object> argument : Json.object(vector.get("arguments")).entrySet()) {
                arguments.put(argument.getKey(), Json.string(argument.getValue()));
            }
            String message = Json.string(vector.get("message"));
            assertEquals(Json.string(vector.get("expected")),
                MessageFormat.format(message, Json.string(vector.get("language")), arguments), message + " " + arguments);
        }
    }
}
