import COpenSSL

/// The search for the primes of a 3-prime RSA key, on OpenSSL's bignum arithmetic and CSPRNG.
///
/// Why not `EVP_PKEY_generate`: OpenSSL 3 confirms every prime it finds with at least 64
/// Miller-Rabin rounds (`bn_mr_min_checks`; no parameter lowers it), and sieves candidates with
/// only 128 small primes at this size. Callgrind of `flowspec check flows/` (551 items, 22 keys)
/// put 61 % of the run's instructions in key generation, and about 60 % of that in those final
/// rounds (76 primes × 64 modular exponentiations). Here a candidate window is sieved by every
/// odd prime below 2^16 and a survivor must pass `rounds` Miller-Rabin rounds with random bases:
/// FIPS 186-5 (Table B.1) asks 4 rounds of a 1024-bit prime for an error below 2^-100, and for a
/// random 682-bit candidate the Damgård–Landrock–Pomerance bound puts 8 rounds below 2^-120. Each key is
/// checked whole by OpenSSL in `KeyTests` (`EVP_PKEY_check`: primality with 64 rounds, n,
/// d, the CRT values), so a mistake here cannot pass the suite. docs/check.md, "Keys".
enum PrimeSearch {
    /// Miller-Rabin rounds a survivor of the sieve must pass.
    static let rounds = 8

    /// The odd primes below 2^16 (the sieve's divisors).
    static let smallPrimes: [UInt32] = {
        let limit = 1 << 16
        var composite = [Bool](repeating: false, count: limit)
        var primes: [UInt32] = []
        var n = 3
        while n < limit {
            if !composite[n] {
                primes.append(UInt32(n))
                var multiple = n * n
                while multiple < limit { composite[multiple] = true; multiple += 2 * n }
            }
            n += 2
        }
        return primes
    }()

    /// Odd offsets a window holds: the gap between primes near 2^683 averages 473, so a window
    /// of 4 096 odd numbers (8 192 integers) almost never runs dry.
    static let window = 4096

    /// A prime p with `lower ≤ p < 2^bits` (`lower` nil: the top two bits set) and
    /// gcd(p − 1, 65537) = 1. The caller owns the result (free it with `BN_clear_free`).
    static func prime(bits: Int, atLeast lower: OpaquePointer?, _ ctx: OpaquePointer) throws(JOSEError) -> OpaquePointer {
        guard let base = BN_new(), let candidate = BN_new() else { throw OpenSSL.failure("BN_new") }
        var found = false
        defer {
            BN_clear_free(base)
            if !found { BN_clear_free(candidate) }
        }
        var composite = [Bool](repeating: false, count: window)
        while true {
            try randomStart(base, bits: bits, atLeast: lower, ctx)
            for index in composite.indices { composite[index] = false }
            // Offset k stands for base + 2k; mark every k whose number a small prime divides.
            for p in smallPrimes {
                let residue = UInt32(BN_mod_word(base, UInt(p)))
                // base + 2k ≡ 0 (mod p)  ⇔  k ≡ (p − residue) · 2⁻¹ (mod p), with 2⁻¹ = (p + 1) / 2.
                var k = Int(UInt64((p - residue) % p) * UInt64((p + 1) / 2) % UInt64(p))
                while k < window { composite[k] = true; k += Int(p) }
            }
            // p ≡ 1 (mod 65537) would make 65537 divide p − 1: e would have no inverse.
            let e: UInt32 = 65_537
            let residueE = UInt32(BN_mod_word(base, UInt(e)))
            var k = Int(UInt64((e + 1 - residueE) % e) * UInt64((e + 1) / 2) % UInt64(e))
            while k < window { composite[k] = true; k += Int(e) }

            for offset in 0..<window where !composite[offset] {
                guard BN_copy(candidate, base) != nil, BN_add_word(candidate, UInt(2 * offset)) == 1 else {
                    throw OpenSSL.failure("BN_add_word")
                }
                if BN_num_bits(candidate) > Int32(bits) { break }
                if try isProbablePrime(candidate, rounds: rounds, ctx) {
                    found = true
                    return candidate
                }
            }
        }
    }

    /// An odd random start: top two bits set, or in [lower, 2^bits) when `lower` is given.
    private static func randomStart(_ base: OpaquePointer, bits: Int, atLeast lower: OpaquePointer?, _ ctx: OpaquePointer) throws(JOSEError) {
        if let lower {
            // lower + a random number below 2^bits − lower.
            guard let span = BN_new() else { throw OpenSSL.failure("BN_new") }
            defer { BN_free(span) }
            try OpenSSL.check(BN_set_word(span, 0), "BN_set_word")
            try OpenSSL.check(BN_set_bit(span, Int32(bits)), "BN_set_bit")
            try OpenSSL.check(BN_sub(span, span, lower), "BN_sub")
            try OpenSSL.check(BN_priv_rand_range_ex(base, span, 0, ctx), "BN_priv_rand_range_ex")
            try OpenSSL.check(BN_add(base, base, lower), "BN_add")
            try OpenSSL.check(BN_set_bit(base, 0), "BN_set_bit")
        } else {
            // top 1: the two most significant bits set; bottom 1: odd.
            try OpenSSL.check(BN_priv_rand_ex(base, Int32(bits), 1, 1, 0, ctx), "BN_priv_rand_ex")
        }
    }

    /// Miller-Rabin with `rounds` random bases in [2, n − 2]; n odd and > 3.
    static func isProbablePrime(_ n: OpaquePointer, rounds: Int, _ ctx: OpaquePointer) throws(JOSEError) -> Bool {
        guard let nMinus1 = BN_dup(n), let d = BN_new(), let a = BN_new(), let x = BN_new(), let range = BN_dup(n),
              let mont = BN_MONT_CTX_new()
        else { throw OpenSSL.failure("BN_new") }
        defer {
            BN_free(nMinus1); BN_free(d); BN_clear_free(a); BN_clear_free(x); BN_free(range)
            BN_MONT_CTX_free(mont)
        }
        try OpenSSL.check(BN_sub_word(nMinus1, 1), "BN_sub_word")
        var s: Int32 = 0
        while BN_is_bit_set(nMinus1, s) == 0 { s += 1 }
        try OpenSSL.check(BN_rshift(d, nMinus1, s), "BN_rshift")
        try OpenSSL.check(BN_sub_word(range, 3), "BN_sub_word")
        try OpenSSL.check(BN_MONT_CTX_set(mont, n, ctx), "BN_MONT_CTX_set")
        rounds: for _ in 0..<rounds {
            try OpenSSL.check(BN_priv_rand_range_ex(a, range, 0, ctx), "BN_priv_rand_range_ex")
            try OpenSSL.check(BN_add_word(a, 2), "BN_add_word")
            try OpenSSL.check(BN_mod_exp_mont(x, a, d, n, ctx, mont), "BN_mod_exp_mont")
            if BN_is_one(x) == 1 || BN_cmp(x, nMinus1) == 0 { continue }
            var squarings: Int32 = 1
            while squarings < s {
                try OpenSSL.check(BN_mod_mul(x, x, x, n, ctx), "BN_mod_mul")
                if BN_cmp(x, nMinus1) == 0 { continue rounds }
                if BN_is_one(x) == 1 { return false }
                squarings += 1
            }
            return false
        }
        return true
    }
}

/// Bignums made for one key, cleared and freed together.
private final class Bignums {
    private var owned: [OpaquePointer] = []

    deinit { owned.forEach { BN_clear_free($0) } }

    /// A new zero, freed with the others.
    func make() throws(JOSEError) -> OpaquePointer {
        guard let value = BN_new() else { throw OpenSSL.failure("BN_new") }
        owned.append(value)
        return value
    }

    /// `value` (from `PrimeSearch.prime`), freed with the others.
    func own(_ value: OpaquePointer) -> OpaquePointer {
        owned.append(value)
        return value
    }

    /// `value − 1` as a new bignum.
    func minusOne(_ value: OpaquePointer) throws(JOSEError) -> OpaquePointer {
        let result = try make()
        guard BN_copy(result, value) != nil else { throw OpenSSL.failure("BN_copy") }
        try OpenSSL.check(BN_sub_word(result, 1), "BN_sub_word")
        return result
    }
}

extension RSAKey {
    /// A 3-prime key of `bits` bits (public exponent 65537) from `PrimeSearch`: primes of
    /// ⌈bits/3⌉, ⌈bits/3⌉ and the rest, the last one drawn above 2^(bits−1) / (p·q) so that n has
    /// exactly `bits` bits. Private: d = e⁻¹ mod lcm(p−1, q−1, r−1), CRT exponents d mod (pᵢ−1),
    /// coefficients q⁻¹ mod p and (p·q)⁻¹ mod r (RFC 8017 §3.2, OpenSSL's multi-prime parameters).
    static func generateThreePrime(bits: Int) throws(JOSEError) -> RSAKey {
        guard bits >= 1024, bits % 8 == 0 else { throw .invalidKey("a 3-prime key needs at least 1024 bits, a multiple of 8") }
        guard let ctx = BN_CTX_new() else { throw OpenSSL.failure("BN_CTX_new") }
        defer { BN_CTX_free(ctx) }
        let numbers = Bignums()
        let (p, q, r, pq) = try threePrimes(bits: bits, numbers, ctx)
        return try RSAKey(adopting: keyPair(p: p, q: q, r: r, pq: pq, bits: bits, numbers, ctx))
    }

    /// p > q of ⌈bits/3⌉ bits, r of the rest above 2^(bits−1) / (p·q), all distinct; and p·q.
    private static func threePrimes(bits: Int, _ numbers: Bignums, _ ctx: OpaquePointer) throws(JOSEError)
        -> (p: OpaquePointer, q: OpaquePointer, r: OpaquePointer, pq: OpaquePointer)
    {
        let firstBits = (bits + 2) / 3
        let lastBits = bits - 2 * firstBits
        var p = numbers.own(try PrimeSearch.prime(bits: firstBits, atLeast: nil, ctx))
        var q = numbers.own(try PrimeSearch.prime(bits: firstBits, atLeast: nil, ctx))
        while BN_cmp(p, q) == 0 { q = numbers.own(try PrimeSearch.prime(bits: firstBits, atLeast: nil, ctx)) }
        if BN_cmp(p, q) < 0 { swap(&p, &q) }
        // r ≥ ⌈2^(bits−1) / (p·q)⌉: p·q ≥ (3/4)²·2^(2·firstBits), so the bound is below 2^lastBits.
        let pq = try numbers.make(), lower = try numbers.make(), remainder = try numbers.make()
        try OpenSSL.check(BN_mul(pq, p, q, ctx), "BN_mul")
        try OpenSSL.check(BN_set_word(lower, 0), "BN_set_word")
        try OpenSSL.check(BN_set_bit(lower, Int32(bits - 1)), "BN_set_bit")
        try OpenSSL.check(BN_div(lower, remainder, lower, pq, ctx), "BN_div")
        if BN_is_zero(remainder) == 0 { try OpenSSL.check(BN_add_word(lower, 1), "BN_add_word") }
        var r = numbers.own(try PrimeSearch.prime(bits: lastBits, atLeast: lower, ctx))
        while BN_cmp(r, p) == 0 || BN_cmp(r, q) == 0 { r = numbers.own(try PrimeSearch.prime(bits: lastBits, atLeast: lower, ctx)) }
        return (p, q, r, pq)
    }

    /// The key pair of the primes: n, e = 65537, d, the CRT exponents and coefficients.
    private static func keyPair(p: OpaquePointer, q: OpaquePointer, r: OpaquePointer, pq: OpaquePointer, bits: Int,
                                _ numbers: Bignums, _ ctx: OpaquePointer) throws(JOSEError) -> OpaquePointer {
        let n = try numbers.make(), e = try numbers.make(), d = try numbers.make()
        try OpenSSL.check(BN_mul(n, pq, r, ctx), "BN_mul")
        guard BN_num_bits(n) == Int32(bits) else { throw .invalidKey("the primes' product has \(BN_num_bits(n)) bits, not \(bits)") }
        try OpenSSL.check(BN_set_word(e, 65_537), "BN_set_word")

        // λ = lcm(p−1, q−1, r−1), built pairwise: lcm(a, b) = a·b / gcd(a, b).
        let pm1 = try numbers.minusOne(p), qm1 = try numbers.minusOne(q), rm1 = try numbers.minusOne(r)
        let lambda = try numbers.make(), gcd = try numbers.make()
        guard BN_copy(lambda, pm1) != nil else { throw OpenSSL.failure("BN_copy") }
        for next in [qm1, rm1] {
            try OpenSSL.check(BN_gcd(gcd, lambda, next, ctx), "BN_gcd")
            try OpenSSL.check(BN_mul(lambda, lambda, next, ctx), "BN_mul")
            try OpenSSL.check(BN_div(lambda, nil, lambda, gcd, ctx), "BN_div")
        }
        guard BN_mod_inverse(d, e, lambda, ctx) != nil else { throw OpenSSL.failure("BN_mod_inverse") }
        let dp = try numbers.make(), dq = try numbers.make(), dr = try numbers.make()
        let qInv = try numbers.make(), pqInv = try numbers.make()
        try OpenSSL.check(BN_div(nil, dp, d, pm1, ctx), "BN_div")
        try OpenSSL.check(BN_div(nil, dq, d, qm1, ctx), "BN_div")
        try OpenSSL.check(BN_div(nil, dr, d, rm1, ctx), "BN_div")
        guard BN_mod_inverse(qInv, q, p, ctx) != nil, BN_mod_inverse(pqInv, pq, r, ctx) != nil else {
            throw OpenSSL.failure("BN_mod_inverse")
        }

        return try OpenSSL.pkeyFromData(type: "RSA", selection: OpenSSL.selectKeyPair) { builder throws(JOSEError) in
            let parameters: [(StaticString, OpaquePointer)] = [
                ("n", n), ("e", e), ("d", d), ("rsa-factor1", p), ("rsa-factor2", q), ("rsa-factor3", r),
                ("rsa-exponent1", dp), ("rsa-exponent2", dq), ("rsa-exponent3", dr),
                ("rsa-coefficient1", qInv), ("rsa-coefficient2", pqInv),
            ]
            for (name, value) in parameters { try builder.bignum(name, copying: value) }
        }
    }
}
