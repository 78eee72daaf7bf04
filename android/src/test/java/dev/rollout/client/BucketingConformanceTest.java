package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The conformance kit's bucketing.json: every device lands in the bucket the Swift client puts it in. */
class BucketingConformanceTest {
    @Test
    void everyDeviceLandsInTheBucketTheVectorsSay() throws Exception {
        List<Map<String, Object>> vectors = Fixtures.cases(Fixtures.kit("bucketing.json"), "vectors", 40);
        for (Map<String, Object> v : vectors) {
            int bucket = Bucketing.bucket(Json.string(v.get("installId")), Json.string(v.get("salt")));
            assertEquals((long) Json.integer(v.get("bucket")), bucket, v.toString());
        }
    }

    @Test
    void bucketsAreNeverNegativeEvenWhenTheDigestStartsWithAHighBit() {
        // Half of all digests start with a set bit; a signed remainder would give those devices negative buckets.
        boolean sawHighBit = false;
        for (int i = 0; i < 200; i++) {
            String id = "device-" + i;
            byte first = Sha256.digest(("salt\0" + id).getBytes(java.nio.charset.StandardCharsets.UTF_8))[0];
            sawHighBit |= first < 0;
            int bucket = Bucketing.bucket(id, "salt");
            assertTrue(bucket >= 0 && bucket < Bucketing.BUCKETS, id + " is in bucket " + bucket);
        }
        assertTrue(sawHighBit);
    }
}
