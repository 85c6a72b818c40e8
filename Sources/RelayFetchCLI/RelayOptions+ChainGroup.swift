extension RelayOptions {
    /// The relay options of one `--chain` group (crawl, proxy), with the first chain's origin
    /// trust and timeouts where it gives none.
    static func chainGroup(_ arguments: [String], inheriting first: RelayOptions) throws -> RelayOptions {
        var scanner = ArgumentScanner(arguments)
        var chain = RelayOptions()
        chain.allowsSeveralProfiles = true
        while let argument = scanner.next() {
            guard try chain.parse(&scanner) else { throw UsageError("only relay options may follow --chain, not \(argument)") }
        }
        guard chain.namesRelays else { throw UsageError("--chain needs --relay (or --profile) options after it") }
        chain.originCAFile = chain.originCAFile ?? first.originCAFile
        chain.connectTimeout = chain.connectTimeout ?? first.connectTimeout
        chain.maximumTime = chain.maximumTime ?? first.maximumTime
        chain.idleTimeout = chain.idleTimeout ?? first.idleTimeout
        if !chain.nameResolution.isSet { chain.nameResolution = first.nameResolution }
        try chain.validate()
        return chain
    }
}
