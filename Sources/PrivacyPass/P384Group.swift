internal import COpenSSL

/// The P-384 group as RFC 9497 uses it: elements serialized compressed (49 bytes), scalars as
/// 48 big-endian bytes below the order. Owns its EC_GROUP and one BN_CTX: one per operation.
final class P384Group {
    static let elementLength = 49
    static let scalarLength = 48

    let group: OpaquePointer
    let context: OpaquePointer
    /// The field prime, a, b and the order, copied out once.
    let prime: BigNumber, a: BigNumber, b: BigNumber, order: BigNumber

    init() throws {
        guard let group = EC_GROUP_new_by_curve_name(NID_secp384r1) else { throw PrivacyPassError.cryptoFailure("EC_GROUP_new_by_curve_name") }
        guard let context = BN_CTX_new() else {
            EC_GROUP_free(group)
            throw PrivacyPassError.cryptoFailure("BN_CTX_new")
        }
        self.group = group
        self.context = context
        prime = try BigNumber()
        a = try BigNumber()
        b = try BigNumber()
        guard EC_GROUP_get_curve(group, prime.pointer, a.pointer, b.pointer, context) == 1, let order = EC_GROUP_get0_order(group) else {
            throw PrivacyPassError.cryptoFailure("EC_GROUP_get_curve")
        }
        self.order = try BigNumber(copying: order)
    }

    deinit {
        BN_CTX_free(context)
        EC_GROUP_free(group)
    }

    /// An element owned by this group's caller.
    final class Element {
        let pointer: OpaquePointer
        init(_ group: P384Group) throws {
            guard let pointer = EC_POINT_new(group.group) else { throw PrivacyPassError.cryptoFailure("EC_POINT_new") }
            self.pointer = pointer
        }
        deinit { EC_POINT_free(pointer) }
    }

    func identity() throws -> Element {
        let point = try Element(self)
        guard EC_POINT_set_to_infinity(group, point.pointer) == 1 else { throw PrivacyPassError.cryptoFailure("EC_POINT_set_to_infinity") }
        return point
    }

    func isIdentity(_ point: Element) -> Bool { EC_POINT_is_at_infinity(group, point.pointer) == 1 }

    func point(x: BigNumber, y: BigNumber) throws -> Element {
        let point = try Element(self)
        guard EC_POINT_set_affine_coordinates(group, point.pointer, x.pointer, y.pointer, context) == 1 else {
            throw PrivacyPassError.cryptoFailure("a mapped point is not on P-384")
        }
        return point
    }

    func add(_ p: Element, _ q: Element) throws -> Element {
        let sum = try Element(self)
        guard EC_POINT_add(group, sum.pointer, p.pointer, q.pointer, context) == 1 else { throw PrivacyPassError.cryptoFailure("EC_POINT_add") }
        return sum
    }

    /// a * P + b * G for public scalars and points only (a DLEQ proof's check): one
    /// variable-time simultaneous multiplication. OpenSSL takes its constant-time ladder for a
    /// lone k * P or k * G (right for secrets such as a blind), at several times the cost; giving
    /// it a generator term (zero when `b` is nil) selects the wNAF path instead.
    func multiplyPublic(_ a: BigNumber, _ point: Element, plusGeneratorTimes b: BigNumber? = nil) throws -> Element {
        let product = try Element(self)
        let generatorScalar = try b ?? BigNumber()
        guard EC_POINT_mul(group, product.pointer, generatorScalar.pointer, point.pointer, a.pointer, context) == 1 else {
            throw PrivacyPassError.cryptoFailure("EC_POINT_mul")
        }
        return product
    }

    /// k * P, or k * G when `point` is nil, in constant time.
    func multiply(_ scalar: BigNumber, _ point: Element?) throws -> Element {
        let product = try Element(self)
        let status = point.map { EC_POINT_mul(group, product.pointer, nil, $0.pointer, scalar.pointer, context) }
            ?? EC_POINT_mul(group, product.pointer, scalar.pointer, nil, nil, context)
        guard status == 1 else { throw PrivacyPassError.cryptoFailure("EC_POINT_mul") }
        return product
    }

    /// SerializeElement: compressed SEC1; the identity has no encoding and is refused.
    func serialize(_ point: Element) throws -> [UInt8] {
        guard !isIdentity(point) else { throw PrivacyPassError.cryptoFailure("the identity element cannot be serialized") }
        var out = [UInt8](repeating: 0, count: Self.elementLength)
        let written = out.withUnsafeMutableBufferPointer {
            EC_POINT_point2oct(group, point.pointer, POINT_CONVERSION_COMPRESSED, $0.baseAddress, $0.count, context)
        }
        guard written == Self.elementLength else { throw PrivacyPassError.cryptoFailure("EC_POINT_point2oct") }
        return out
    }

    /// DeserializeElement: a compressed point on the curve, not the identity.
    func deserialize(_ bytes: [UInt8]) throws -> Element {
        guard bytes.count == Self.elementLength, bytes[0] == 0x02 || bytes[0] == 0x03 else {
            throw PrivacyPassError.malformedMessage("a P-384 element is not 49 compressed bytes")
        }
        let point = try Element(self)
        let status = bytes.withUnsafeBufferPointer { EC_POINT_oct2point(group, point.pointer, $0.baseAddress, $0.count, context) }
        guard status == 1, !isIdentity(point) else { throw PrivacyPassError.malformedMessage("a P-384 element is not on the curve") }
        return point
    }

    func serializeScalar(_ scalar: BigNumber) throws -> [UInt8] { try scalar.bytes(count: Self.scalarLength) }

    /// DeserializeScalar: 48 bytes, below the order.
    func deserializeScalar(_ bytes: [UInt8]) throws -> BigNumber {
        guard bytes.count == Self.scalarLength else { throw PrivacyPassError.malformedMessage("a P-384 scalar is not 48 bytes") }
        let scalar = try BigNumber(bytes: bytes)
        guard scalar.isLess(than: order) else { throw PrivacyPassError.malformedMessage("a P-384 scalar is not below the order") }
        return scalar
    }
}
