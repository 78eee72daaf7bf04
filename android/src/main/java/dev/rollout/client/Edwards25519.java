package dev.rollout.client;

import java.math.BigInteger;

/**
 * The group Ed25519 works in (RFC 8032 section 5.1): the twisted Edwards curve -x^2 + y^2 = 1 + d x^2 y^2 over the
 * field of p = 2^255 - 19. Only what verification needs, in variable time (a verifier handles nothing secret).
 *
 * <p>Field elements are 16 signed limbs of 16 bits, little-endian, not necessarily reduced: products of two limbs and
 * their sums stay far inside a long, so additions need no carries and only a multiplication carries, at its end.
 * Points are in extended coordinates (X:Y:Z:T) with x = X/Z, y = Y/Z, xy = T/Z, where the addition and doubling
 * formulas of Hisil, Wong, Carter and Dawson (2008) are complete for this curve: no point, the identity and small-order
 * points included, needs a special case. Work that runs once per verification (decoding, encoding) uses BigInteger.
 */
final class Edwards25519 {
    static final BigInteger P = BigInteger.ONE.shiftLeft(255).subtract(BigInteger.valueOf(19));
    /** The order of the base point: 2^252 + 27742317777372353535851937790883648493. */
    static final BigInteger L =
        BigInteger.ONE.shiftLeft(252).add(new BigInteger("27742317777372353535851937790883648493"));
    static final BigInteger D = BigInteger.valueOf(-121665)
        .multiply(BigInteger.valueOf(121666).modInverse(P)).mod(P);
    /** A square root of -1: 2^((p-1)/4). */
    private static final BigInteger SQRT_MINUS_ONE =
        BigInteger.valueOf(2).modPow(P.subtract(BigInteger.ONE).shiftRight(2), P);
    private static final BigInteger P_MINUS_5_OVER_8 = P.subtract(BigInteger.valueOf(5)).shiftRight(3);
    private static final long[] TWO_D = limbs(D.shiftLeft(1).mod(P));

    /** The base point B of RFC 8032: y = 4/5, x positive (even). */
    static final Point BASE;
    private static final Point[] BASE_TABLE;

    static {
        BigInteger y = BigInteger.valueOf(4).multiply(BigInteger.valueOf(5).modInverse(P)).mod(P);
        BASE = decodeCoordinates(y, 0);
        BASE_TABLE = windowTable(BASE);
    }

    private Edwards25519() {}

    /** A point in extended coordinates. Immutable once built. */
    static final class Point {
        final long[] x;
        final long[] y;
        final long[] z;
        final long[] t;

        Point(long[] x, long[] y, long[] z, long[] t) {
            this.x = x;
            this.y = y;
            this.z = z;
            this.t = t;
        }

        /** The neutral element (0, 1). */
        static Point identity() {
            return new Point(new long[16], one(), one(), new long[16]);
        }

        /** -P = (-x, y). */
        Point negate() {
            return new Point(negated(x), y.clone(), z.clone(), negated(t));
        }

        /** P + Q (add-2008-hwcd-3 with k = 2d). */
        Point add(Point q) {
            long[] a = mul(sub(y, x), sub(q.y, q.x));
            long[] b = mul(sum(y, x), sum(q.y, q.x));
            long[] c = mul(mul(t, q.t), TWO_D);
            long[] d = mul(z, q.z);
            d = sum(d, d);
            return finish(sub(b, a), sub(d, c), sum(d, c), sum(b, a));
        }

        /** 2P (dbl-2008-hwcd with a = -1). */
        Point twice() {
            long[] a = mul(x, x);
            long[] b = mul(y, y);
            long[] c = mul(z, z);
            c = sum(c, c);
            long[] e = sub(sub(mul(sum(x, y), sum(x, y)), a), b);
            long[] g = sub(b, a);
            long[] f = sub(g, c);
            long[] h = sub(negated(a), b);
            return finish(e, f, g, h);
        }

        /** X = EF, Y = GH, T = EH, Z = FG: the last step the addition and doubling formulas share. */
        private static Point finish(long[] e, long[] f, long[] g, long[] h) {
            return new Point(mul(e, f), mul(g, h), mul(f, g), mul(e, h));
        }

        /** RFC 8032 section 5.1.2: y in 255 bits, little-endian, with the low bit of x as the top bit. */
        byte[] encode() {
            BigInteger inverse = value(z).modInverse(P);
            BigInteger affineX = value(x).multiply(inverse).mod(P);
            BigInteger affineY = value(y).multiply(inverse).mod(P);
            byte[] out = littleEndian(affineY);
            if (affineX.testBit(0)) out[31] |= (byte) 0x80;
            return out;
        }
    }

    /**
     * The point {@code encoding} names, read as OpenSSL 3 reads a public key (ge_frombytes_vartime in
     * crypto/ec/curve25519.c), or null when no point has that y: the top bit is x's sign, the other 255 bits are y and
     * are not required to be below p (y + p reads as y), and a sign bit of 1 with x = 0 reads as x = 0. RFC 8032 would
     * refuse both of those encodings; the Swift client verifies with OpenSSL, and both clients must agree.
     */
    static Point decodeLikeOpenSsl(byte[] encoding) {
        byte[] copy = encoding.clone();
        int sign = (copy[31] >> 7) & 1;
        copy[31] &= 0x7F;
        BigInteger y = fromLittleEndian(copy).mod(P);
        return decodeCoordinates(y, sign);
    }

    private static Point decodeCoordinates(BigInteger y, int sign) {
        BigInteger ySquared = y.multiply(y).mod(P);
        BigInteger u = ySquared.subtract(BigInteger.ONE).mod(P);
        BigInteger v = D.multiply(ySquared).add(BigInteger.ONE).mod(P);
        // x = u v^3 (u v^7)^((p-5)/8), a square root of u/v if one exists (RFC 8032 section 5.1.3, step 2).
        BigInteger v3 = v.multiply(v).multiply(v).mod(P);
        BigInteger v7 = v3.multiply(v3).multiply(v).mod(P);
        BigInteger x = u.multiply(v3).multiply(u.multiply(v7).mod(P).modPow(P_MINUS_5_OVER_8, P)).mod(P);
        BigInteger vxx = v.multiply(x).multiply(x).mod(P);
        if (!vxx.equals(u)) {
            if (vxx.add(u).mod(P).signum() != 0) return null;
            x = x.multiply(SQRT_MINUS_ONE).mod(P);
        }
        if ((x.testBit(0) ? 1 : 0) != sign) x = P.subtract(x).mod(P);
        long[] lx = limbs(x);
        long[] ly = limbs(y);
        return new Point(lx, ly, one(), mul(lx, ly));
    }

    /** [a]B + [b]Q for non-negative scalars below 2^256, by one shared run of doublings (Straus-Shamir). */
    static Point doubleScalarMultiplyBase(BigInteger a, BigInteger b, Point q) {
        Point[] table = BASE_TABLE;
        Point[] tableQ = windowTable(q);
        Point r = Point.identity();
        // Four bits at a time: 64 additions of each table instead of one per set bit.
        for (int window = 63; window >= 0; window--) {
            if (window != 63) r = r.twice().twice().twice().twice();
            int da = nibble(a, window);
            int db = nibble(b, window);
            if (da != 0) r = r.add(table[da]);
            if (db != 0) r = r.add(tableQ[db]);
        }
        return r;
    }

    private static int nibble(BigInteger scalar, int window) {
        int value = 0;
        for (int bit = 3; bit >= 0; bit--) value = value << 1 | (scalar.testBit(4 * window + bit) ? 1 : 0);
        return value;
    }

    /** 0P (unused), P, 2P, ... 15P. */
    private static Point[] windowTable(Point p) {
        Point[] table = new Point[16];
        table[1] = p;
        for (int i = 2; i < 16; i++) table[i] = table[i - 1].add(p);
        return table;
    }

    // Field arithmetic on 16 limbs of 16 bits.

    private static long[] one() {
        long[] out = new long[16];
        out[0] = 1;
        return out;
    }

    private static long[] sum(long[] a, long[] b) {
        long[] out = new long[16];
        for (int i = 0; i < 16; i++) out[i] = a[i] + b[i];
        return out;
    }

    private static long[] sub(long[] a, long[] b) {
        long[] out = new long[16];
        for (int i = 0; i < 16; i++) out[i] = a[i] - b[i];
        return out;
    }

    private static long[] negated(long[] a) {
        long[] out = new long[16];
        for (int i = 0; i < 16; i++) out[i] = -a[i];
        return out;
    }

    /** a b mod p. 2^256 = 38 (mod p) folds the upper half of the product onto the lower. */
    private static long[] mul(long[] a, long[] b) {
        long[] product = new long[31];
        for (int i = 0; i < 16; i++) {
            long ai = a[i];
            for (int j = 0; j < 16; j++) product[i + j] += ai * b[j];
        }
        for (int i = 0; i < 15; i++) product[i] += 38 * product[i + 16];
        long[] out = new long[16];
        System.arraycopy(product, 0, out, 0, 16);
        carry(out);
        carry(out);
        return out;
    }

    /** Brings every limb into [0, 2^16), carrying what leaves the top limb (2^256) into the bottom as 38 times it. */
    private static void carry(long[] limbs) {
        for (int i = 0; i < 16; i++) {
            long c = limbs[i] >> 16;
            limbs[i] -= c << 16;
            if (i < 15) {
                limbs[i + 1] += c;
            } else {
                limbs[0] += 38 * c;
            }
        }
    }

    private static long[] limbs(BigInteger value) {
        byte[] bytes = littleEndian(value.mod(P));
        long[] out = new long[16];
        for (int i = 0; i < 16; i++) out[i] = (bytes[2 * i] & 0xFF) | (bytes[2 * i + 1] & 0xFF) << 8;
        return out;
    }

    private static BigInteger value(long[] limbs) {
        BigInteger out = BigInteger.ZERO;
        for (int i = 15; i >= 0; i--) out = out.shiftLeft(16).add(BigInteger.valueOf(limbs[i]));
        return out.mod(P);
    }

    /** The 32 little-endian bytes of a value below 2^256. */
    private static byte[] littleEndian(BigInteger value) {
        byte[] big = value.toByteArray();
        byte[] out = new byte[32];
        for (int i = 0; i < 32 && i < big.length; i++) out[i] = big[big.length - 1 - i];
        return out;
    }

    /** The unsigned little-endian number {@code bytes} write (scalars and field elements on the wire). */
    static BigInteger fromLittleEndian(byte[] bytes) {
        byte[] big = new byte[bytes.length + 1];
        for (int i = 0; i < bytes.length; i++) big[bytes.length - i] = bytes[i];
        return new BigInteger(big);
    }
}
