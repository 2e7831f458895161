import COpenSSL

/// The search for the primes of a multi-prime RSA key, on OpenSSL's bignum arithmetic and CSPRNG.
///
/// Why not `EVP_PKEY_generate`: OpenSSL 3 confirms every prime it finds with at least 64
/// Miller-Rabin rounds (`bn_mr_min_checks`; no parameter lowers it), sieves candidates with
/// only 128 small primes at this size, and makes at most 3 primes for a 2048-bit modulus
/// (`ossl_rsa_multip_cap`). Callgrind of `flowspec check flows/` (551 items, 22 keys) put 61 %
/// of the run's instructions in key generation, and about 60 % of that in those final rounds
/// (76 primes × 64 modular exponentiations). Here a candidate window is sieved by every odd
/// prime below 2^16 and a survivor must pass `rounds` Miller-Rabin rounds with random bases:
/// FIPS 186-5 (Table B.1) asks 4 rounds of a 1024-bit prime for an error below 2^-100, and for a
/// random 512-bit candidate the Damgård–Landrock–Pomerance bound puts 8 rounds below 2^-100.
/// Every key is checked whole by OpenSSL in `KeyTests` (`EVP_PKEY_check`: primality with 64
/// rounds, n, d, the CRT values; 4 primes at 4096 bits, where OpenSSL's cap allows them), and
/// the 2048-bit 4-prime keys component by component, so a mistake here cannot pass the suite.
/// docs/check.md, "Keys".
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
        // OpenSSL's constant-time exponentiation takes its RSAZ code for a 512-bit modulus (x86-64
        // with MULX/ADX): 0.06 against 0.075 ms here. At 683 bits it has none and is the slower.
        let rsaz512 = BN_num_bits(n) == 512
        rounds: for _ in 0..<rounds {
            try OpenSSL.check(BN_priv_rand_range_ex(a, range, 0, ctx), "BN_priv_rand_range_ex")
            try OpenSSL.check(BN_add_word(a, 2), "BN_add_word")
            if rsaz512 {
                try OpenSSL.check(BN_mod_exp_mont_consttime(x, a, d, n, ctx, mont), "BN_mod_exp_mont_consttime")
            } else {
                try OpenSSL.check(BN_mod_exp_mont(x, a, d, n, ctx, mont), "BN_mod_exp_mont")
            }
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
    /// A key of `bits` bits (public exponent 65537) with `count` primes from `PrimeSearch`: the
    /// first `count − 1` of ⌈bits/count⌉ bits, the last of the rest drawn above
    /// 2^(bits−1) / (their product) so that n has exactly `bits` bits. Private:
    /// d = e⁻¹ mod lcm(pᵢ − 1), CRT exponents d mod (pᵢ − 1), coefficients p₂⁻¹ mod p₁ and
    /// (p₁⋯pᵢ₋₁)⁻¹ mod pᵢ (RFC 8017 §3.2, OpenSSL's multi-prime parameters).
    static func generateMultiPrime(bits: Int, count: Int) throws(JOSEError) -> RSAKey {
        guard (3...Self.factorNames.count).contains(count) else { throw .invalidKey("a multi-prime key has 3 to \(Self.factorNames.count) primes") }
        guard bits >= 1024, bits % 8 == 0 else { throw .invalidKey("a multi-prime key needs at least 1024 bits, a multiple of 8") }
        guard let ctx = BN_CTX_new() else { throw OpenSSL.failure("BN_CTX_new") }
        defer { BN_CTX_free(ctx) }
        let numbers = Bignums()
        let primes = try multiPrimes(bits: bits, count: count, numbers, ctx)
        return try RSAKey(adopting: keyPair(primes: primes, bits: bits, numbers, ctx))
    }

    static let factorNames: [StaticString] = ["rsa-factor1", "rsa-factor2", "rsa-factor3", "rsa-factor4", "rsa-factor5"]
    static let exponentNames: [StaticString] = ["rsa-exponent1", "rsa-exponent2", "rsa-exponent3", "rsa-exponent4", "rsa-exponent5"]
    static let coefficientNames: [StaticString] = ["rsa-coefficient1", "rsa-coefficient2", "rsa-coefficient3", "rsa-coefficient4"]

    /// `count` distinct primes, the first `count − 1` of ⌈bits/count⌉ bits in decreasing order,
    /// the last above 2^(bits−1) / (their product) and below 2^(the bits left).
    private static func multiPrimes(bits: Int, count: Int, _ numbers: Bignums, _ ctx: OpaquePointer) throws(JOSEError) -> [OpaquePointer] {
        let firstBits = (bits + count - 1) / count
        let lastBits = bits - (count - 1) * firstBits
        let product = try numbers.make(), lower = try numbers.make(), remainder = try numbers.make(), limit = try numbers.make()
        try OpenSSL.check(BN_set_word(limit, 0), "BN_set_word")
        try OpenSSL.check(BN_set_bit(limit, Int32(lastBits)), "BN_set_bit")
        while true {
            var primes: [OpaquePointer] = []
            while primes.count < count - 1 {
                let prime = numbers.own(try PrimeSearch.prime(bits: firstBits, atLeast: nil, ctx))
                if !primes.contains(where: { BN_cmp($0, prime) == 0 }) { primes.append(prime) }
            }
            primes.sort { BN_cmp($0, $1) > 0 }
            try OpenSSL.check(BN_set_word(product, 1), "BN_set_word")
            for prime in primes { try OpenSSL.check(BN_mul(product, product, prime, ctx), "BN_mul") }
            // last ≥ ⌈2^(bits−1) / product⌉. Each prime has its top two bits set, so the product is
            // at least (3/4)^(count−1) of 2^((count−1)·firstBits): below 2^lastBits for 3 primes,
            // and for 4 unless the product falls under half of it (then the first ones are drawn again).
            try OpenSSL.check(BN_set_word(lower, 0), "BN_set_word")
            try OpenSSL.check(BN_set_bit(lower, Int32(bits - 1)), "BN_set_bit")
            try OpenSSL.check(BN_div(lower, remainder, lower, product, ctx), "BN_div")
            if BN_is_zero(remainder) == 0 { try OpenSSL.check(BN_add_word(lower, 1), "BN_add_word") }
            guard BN_cmp(lower, limit) < 0 else { continue }
            var last = numbers.own(try PrimeSearch.prime(bits: lastBits, atLeast: lower, ctx))
            while primes.contains(where: { BN_cmp($0, last) == 0 }) {
                last = numbers.own(try PrimeSearch.prime(bits: lastBits, atLeast: lower, ctx))
            }
            return primes + [last]
        }
    }

    /// The key pair of the primes: n, e = 65537, d, the CRT exponents and coefficients.
    private static func keyPair(primes: [OpaquePointer], bits: Int, _ numbers: Bignums, _ ctx: OpaquePointer) throws(JOSEError) -> OpaquePointer {
        let n = try numbers.make(), e = try numbers.make(), d = try numbers.make()
        let lambda = try numbers.make(), gcd = try numbers.make()
        try OpenSSL.check(BN_set_word(n, 1), "BN_set_word")
        try OpenSSL.check(BN_set_word(lambda, 1), "BN_set_word")
        try OpenSSL.check(BN_set_word(e, 65_537), "BN_set_word")
        // Coefficient i (from 1) is the inverse of the product of the primes before prime i + 1,
        // modulo it; the first is p₂⁻¹ mod p₁ (OpenSSL's qInv).
        var coefficients: [OpaquePointer] = []
        var minusOnes: [OpaquePointer] = []
        for (index, prime) in primes.enumerated() {
            if index == 1 {
                let inverse = try numbers.make()
                guard BN_mod_inverse(inverse, prime, primes[0], ctx) != nil else { throw OpenSSL.failure("BN_mod_inverse") }
                coefficients.append(inverse)
            } else if index > 1 {
                let inverse = try numbers.make()
                guard BN_mod_inverse(inverse, n, prime, ctx) != nil else { throw OpenSSL.failure("BN_mod_inverse") }
                coefficients.append(inverse)
            }
            try OpenSSL.check(BN_mul(n, n, prime, ctx), "BN_mul")
            // λ = lcm(p₁ − 1, …, pₖ − 1), built pairwise: lcm(a, b) = a·b / gcd(a, b).
            let minusOne = try numbers.minusOne(prime)
            minusOnes.append(minusOne)
            try OpenSSL.check(BN_gcd(gcd, lambda, minusOne, ctx), "BN_gcd")
            try OpenSSL.check(BN_mul(lambda, lambda, minusOne, ctx), "BN_mul")
            try OpenSSL.check(BN_div(lambda, nil, lambda, gcd, ctx), "BN_div")
        }
        guard BN_num_bits(n) == Int32(bits) else { throw .invalidKey("the primes' product has \(BN_num_bits(n)) bits, not \(bits)") }
        guard BN_mod_inverse(d, e, lambda, ctx) != nil else { throw OpenSSL.failure("BN_mod_inverse") }
        var exponents: [OpaquePointer] = []
        for minusOne in minusOnes {
            let exponent = try numbers.make()
            try OpenSSL.check(BN_div(nil, exponent, d, minusOne, ctx), "BN_div")
            exponents.append(exponent)
        }
        return try OpenSSL.pkeyFromData(type: "RSA", selection: OpenSSL.selectKeyPair) { builder throws(JOSEError) in
            for (name, value) in [("n", n), ("e", e), ("d", d)] as [(StaticString, OpaquePointer)] { try builder.bignum(name, copying: value) }
            for (name, value) in zip(factorNames, primes) { try builder.bignum(name, copying: value) }
            for (name, value) in zip(exponentNames, exponents) { try builder.bignum(name, copying: value) }
            for (name, value) in zip(coefficientNames, coefficients) { try builder.bignum(name, copying: value) }
        }
    }
}
