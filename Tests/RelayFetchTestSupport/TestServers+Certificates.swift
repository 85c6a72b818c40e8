import Foundation

extension TestServers {
    /// A leaf certificate (P-256, two days) for `commonName` with `subjectAltName` (as openssl's
    /// -addext takes it, e.g. "IP:127.0.5.2" or "DNS:name,IP:addr"), signed by the test CA with
    /// the openssl CLI; `folder` takes the signing request.
    public static func issueCertificate(commonName: String, subjectAltName: String, certificate: String, key: String, in folder: URL) throws {
        let pki = directory.appendingPathComponent("pki")
        let request = folder.appendingPathComponent("leaf-\(UUID().uuidString).csr").path
        let steps = [
            ["/usr/bin/openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
             "-keyout", key, "-subj", "/CN=\(commonName)", "-addext", "subjectAltName=\(subjectAltName)", "-out", request],
            ["/usr/bin/openssl", "x509", "-req", "-in", request, "-CA", pki.appendingPathComponent("ca.pem").path,
             "-CAkey", pki.appendingPathComponent("ca.key").path, "-set_serial", String(UInt32.random(in: 1...UInt32.max)),
             "-days", "2", "-copy_extensions", "copy", "-out", certificate],
        ]
        for step in steps {
            let result = try run(step)
            guard result.status == 0 else { throw TestServerError(description: "cannot issue a certificate for \(commonName): \(result.output)") }
        }
    }
}
