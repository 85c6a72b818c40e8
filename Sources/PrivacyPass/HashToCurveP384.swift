/// hash_to_curve for P384_XMD:SHA-384_SSWU_RO_ (RFC 9380 §8.3) and hash_to_field over any prime
/// modulus (HashToScalar uses the group order). Variable-time: its inputs are the client's own
/// token input and public transcripts, nothing the issuer should not learn anyway is derived here.
struct HashToCurveP384 {
    let group: P384Group
    private let field: ModularArithmetic
    /// Z = -12, the SSWU constant RFC 9380 chose for P-384.
    private let z: BigNumber

    init(group: P384Group) throws {
        self.group = group
        field = try ModularArithmetic(modulus: group.prime)
        z = try field.negate(BigNumber(word: 12))
    }

    /// expand_message_xmd with SHA-384 (b_in_bytes 48, s_in_bytes 128).
    static func expandMessageXMD(_ message: [UInt8], dst: [UInt8], length: Int) throws -> [UInt8] {
        let ell = (length + 47) / 48
        guard ell <= 255, length <= 0xFFFF, dst.count <= 255 else { throw PrivacyPassError.cryptoFailure("expand_message_xmd bounds") }
        let dstPrime = dst + [UInt8(dst.count)]
        let b0 = SHA.sha384([UInt8](repeating: 0, count: 128) + message + [UInt8(length >> 8), UInt8(length & 0xFF), 0] + dstPrime)
        var previous = SHA.sha384(b0 + [1] + dstPrime)
        var uniform = previous
        if ell >= 2 {
            for index in 2...ell {
                previous = SHA.sha384(zip(b0, previous).map { $0 ^ $1 } + [UInt8(index)] + dstPrime)
                uniform += previous
            }
        }
        return Array(uniform.prefix(length))
    }

    /// hash_to_field with L = 72: `count` elements mod `modulus`.
    static func hashToField(_ message: [UInt8], dst: [UInt8], count: Int, modulus: ModularArithmetic) throws -> [BigNumber] {
        let uniform = try expandMessageXMD(message, dst: dst, length: 72 * count)
        return try (0..<count).map { try modulus.reduce(BigNumber(bytes: Array(uniform[72 * $0..<72 * ($0 + 1)]))) }
    }

    /// hash_to_curve: two field elements, each mapped by SSWU, added (P-384's cofactor is 1).
    func hashToCurve(_ message: [UInt8], dst: [UInt8]) throws -> P384Group.Element {
        let u = try Self.hashToField(message, dst: dst, count: 2, modulus: field)
        return try group.add(mapToCurve(u[0]), mapToCurve(u[1]))
    }

    /// The simplified SWU map (RFC 9380 §6.6.2), straight-line form.
    func mapToCurve(_ u: BigNumber) throws -> P384Group.Element {
        let u2 = try field.multiply(u, u)
        let zu2 = try field.multiply(z, u2)
        let denominator = try field.add(field.multiply(zu2, zu2), zu2)
        let minusBOverA = try field.multiply(field.negate(group.b), invert(group.a))
        let x1: BigNumber
        if denominator.isZero {
            x1 = try field.multiply(group.b, invert(field.multiply(z, group.a)))
        } else {
            x1 = try field.multiply(minusBOverA, field.add(BigNumber(word: 1), invert(denominator)))
        }
        let gx1 = try curveRightSide(x1)
        let x: BigNumber, gx: BigNumber
        if try isSquare(gx1) {
            (x, gx) = (x1, gx1)
        } else {
            let x2 = try field.multiply(zu2, x1)
            (x, gx) = (x2, try curveRightSide(x2))
        }
        var y = try squareRoot(gx)
        if u.isOdd != y.isOdd { y = try field.negate(y) }
        return try group.point(x: x, y: y)
    }

    private func curveRightSide(_ x: BigNumber) throws -> BigNumber {
        try field.add(field.add(field.multiply(field.multiply(x, x), x), field.multiply(group.a, x)), group.b)
    }

    private func invert(_ value: BigNumber) throws -> BigNumber {
        guard let inverse = try field.inverse(value) else { throw PrivacyPassError.cryptoFailure("no field inverse") }
        return inverse
    }

    /// Euler's criterion: x^((p-1)/2) is 0 or 1.
    private func isSquare(_ value: BigNumber) throws -> Bool {
        let exponent = try halve(field.subtract(group.prime, BigNumber(word: 1)), shift: 1)
        let result = try field.power(value, exponent)
        let one = try BigNumber(word: 1)
        return result.isZero || result.equals(one)
    }

    /// p = 3 mod 4, so sqrt(x) = x^((p+1)/4).
    private func squareRoot(_ value: BigNumber) throws -> BigNumber {
        let plusOne = try BigNumber(copying: group.prime.pointer)
        try plusOne.addWord(1)
        return try field.power(value, halve(plusOne, shift: 2))
    }

    private func halve(_ value: BigNumber, shift: Int32) throws -> BigNumber {
        let out = try BigNumber()
        try out.shiftRight(value, by: shift)
        return out
    }
}
