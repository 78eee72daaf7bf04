package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** formatting.json of the conformance kit (docs/conformance.md): what string(key, arguments) shows. */
class FormattingConformanceTest {
    @Test
    void everyMessageFormatsAsTheVectorsSay() throws Exception {
        List<Object> cases = Json.array(Fixtures.kit("formatting.json").get("cases"));
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
