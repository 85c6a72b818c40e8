import Foundation
import RelayProfiles

/// What `relayfetch profile status` prints: the installed profiles each command uses when given
/// no relay option, where each was looked for, and the order in which their chains are tried.
enum ProfileStatusReport {
    static func text(_ installed: ManagedDefaultProfiles) -> String {
        var lines: [String] = []
        for source in installed.sources {
            guard let profile = source.profile else {
                lines.append("\(source.scope.rawValue) profile: none (\(source.path) does not exist)")
                continue
            }
            lines.append("\(source.scope.rawValue) profile: \(source.path)")
            lines += ProfileReport.text(profile, path: source.path).split(separator: "\n").dropFirst().map { "  " + $0 }
        }
        lines.append("")
        guard !installed.isEmpty else {
            lines.append("in force: nothing; get, page and oauth need a relay option or --direct, crawl a relay option")
            return lines.joined(separator: "\n")
        }
        lines.append("in force for get, page, oauth and crawl given no --relay, --profile or --ohttp-relay (--direct bypasses it);")
        lines.append("a host takes the first chain that covers it, the administrator's first, and fails if that chain is down:")
        var number = 0
        for source in installed.sources {
            for payload in source.profile?.relayPayloads ?? [] {
                number += 1
                let chain = payload.relays.map { $0.http2RelayTemplate ?? $0.http2RelayURL?.absoluteString ?? $0.http3RelayURL?.absoluteString ?? "?" }
                lines.append("  \(number). \(chain.joined(separator: " -> ")) (\(source.scope.rawValue), \(source.path))")
                lines.append("     covers: " + ProfileReport.coverage(payload))
            }
        }
        let payloads = installed.sources.flatMap { $0.profile?.relayPayloads ?? [] }
        let coversAll = payloads.contains { $0.matchDomains.isEmpty && $0.matchFQDNs.isEmpty && $0.excludedDomains.isEmpty && $0.excludedFQDNs.isEmpty }
        lines.append(coversAll ? "every host is covered: nothing goes directly unless --direct"
                               : "hosts no chain covers: get, page and oauth connect directly; crawl refuses them")
        return lines.joined(separator: "\n")
    }
}
