internal import COpenSSL

/// An OpenSSL BIGNUM with one owner, cleared and freed with it (blinds and keys pass through).
final class BigNumber {
    let pointer: OpaquePointer

    init() throws {
        guard let pointer = BN_new() else { throw PrivacyPassError.cryptoFailure("BN_new") }
        self.pointer = pointer
    }

    /// The unsigned big-endian integer `bytes` (OS2IP).
    convenience init(bytes: [UInt8]) throws {
        try self.init()
        guard bytes.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress, Int32($0.count), pointer) }) != nil else {
            throw PrivacyPassError.cryptoFailure("BN_bin2bn")
        }
    }

    convenience init(word: UInt) throws {
        try self.init()
        guard BN_set_word(pointer, word) == 1 else { throw PrivacyPassError.cryptoFailure("BN_set_word") }
    }

    /// A copy of a BIGNUM this object does not own (a group's order, say).
    convenience init(copying other: OpaquePointer) throws {
        try self.init()
        guard BN_copy(pointer, other) != nil else { throw PrivacyPassError.cryptoFailure("BN_copy") }
    }

    deinit { BN_clear_free(pointer) }

    /// I2OSP: exactly `count` big-endian bytes; throws when the value needs more.
    func bytes(count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        guard out.withUnsafeMutableBufferPointer({ BN_bn2binpad(pointer, $0.baseAddress, Int32(count)) }) == Int32(count) else {
            throw PrivacyPassError.cryptoFailure("an integer does not fit in \(count) bytes")
        }
        return out
    }

    var bitCount: Int { Int(BN_num_bits(pointer)) }
    var isZero: Bool { BN_is_zero(pointer) == 1 }
    var isOdd: Bool { BN_is_odd(pointer) == 1 }

    func equals(_ other: BigNumber) -> Bool { BN_cmp(pointer, other.pointer) == 0 }
    func isLess(than other: BigNumber) -> Bool { BN_cmp(pointer, other.pointer) < 0 }
}

/// Modular arithmetic over one modulus with one BN_CTX: the RSA modulus, the P-384 field prime
/// or the group order. Not thread-safe (the context is scratch space); each operation owns one.
final class ModularArithmetic {
    let modulus: BigNumber
    private let context: OpaquePointer

    init(modulus: BigNumber) throws {
        guard let context = BN_CTX_new() else { throw PrivacyPassError.cryptoFailure("BN_CTX_new") }
        self.modulus = modulus
        self.context = context
    }

    deinit { BN_CTX_free(context) }

    private func result(_ name: String, _ body: (OpaquePointer) -> Int32) throws -> BigNumber {
        let out = try BigNumber()
        guard body(out.pointer) == 1 else { throw PrivacyPassError.cryptoFailure(name) }
        return out
    }

    func reduce(_ a: BigNumber) throws -> BigNumber { try result("BN_nnmod") { BN_nnmod($0, a.pointer, modulus.pointer, context) } }
    func add(_ a: BigNumber, _ b: BigNumber) throws -> BigNumber { try result("BN_mod_add") { BN_mod_add($0, a.pointer, b.pointer, modulus.pointer, context) } }
    func subtract(_ a: BigNumber, _ b: BigNumber) throws -> BigNumber { try result("BN_mod_sub") { BN_mod_sub($0, a.pointer, b.pointer, modulus.pointer, context) } }
    func multiply(_ a: BigNumber, _ b: BigNumber) throws -> BigNumber { try result("BN_mod_mul") { BN_mod_mul($0, a.pointer, b.pointer, modulus.pointer, context) } }
    func power(_ a: BigNumber, _ exponent: BigNumber) throws -> BigNumber {
        try result("BN_mod_exp") { BN_mod_exp($0, a.pointer, exponent.pointer, modulus.pointer, context) }
    }
    /// a^d for a secret exponent: the constant-time ladder.
    func secretPower(_ a: BigNumber, _ exponent: BigNumber) throws -> BigNumber {
        try result("BN_mod_exp_mont_consttime") { BN_mod_exp_mont_consttime($0, a.pointer, exponent.pointer, modulus.pointer, context, nil) }
    }
    /// The inverse, or nil when there is none (not coprime with the modulus, or zero).
    func inverse(_ a: BigNumber) throws -> BigNumber? {
        let out = try BigNumber()
        // The constant-time path (Euclid without branches on the value) is also the faster one
        // here: OpenSSL's default for an odd modulus is a bitwise binary algorithm that took
        // twice as long (blind 504/s against 961/s on one core). Blinds are secrets either way.
        BN_set_flags(a.pointer, BN_FLG_CONSTTIME)
        return BN_mod_inverse(out.pointer, a.pointer, modulus.pointer, context) == nil ? nil : out
    }
    func negate(_ a: BigNumber) throws -> BigNumber { try subtract(BigNumber(word: 0), a) }

    /// A uniformly random value in [1, modulus).
    func randomNonZero() throws -> BigNumber {
        while true {
            let candidate = try result("BN_rand_range") { BN_rand_range($0, modulus.pointer) }
            if !candidate.isZero { return candidate }
        }
    }
}

extension BigNumber {
    func addWord(_ word: UInt) throws {
        guard BN_add_word(pointer, word) == 1 else { throw PrivacyPassError.cryptoFailure("BN_add_word") }
    }

    /// self = value >> bits.
    func shiftRight(_ value: BigNumber, by bits: Int32) throws {
        guard BN_rshift(pointer, value.pointer, bits) == 1 else { throw PrivacyPassError.cryptoFailure("BN_rshift") }
    }
}
