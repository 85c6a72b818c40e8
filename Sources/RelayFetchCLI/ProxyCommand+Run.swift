#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LocalProxy
import RelayFetch

extension ProxyCommand {
    func run(io: CommandIO) async -> Int32 {
        let configuration: Session.Configuration
        do {
            configuration = try await Self.sessionConfiguration([relay] + moreChains, warn: io.log)
        } catch {
            io.log("relayfetch: error: \(ErrorHint.text(error))")
            return 1
        }
        if check {
            io.print(checkReport(configuration))
            return 0
        }
        var settings = ProxyServer.Settings(listen: listen)
        settings.unixMode = listenMode
        settings.credentials = credentials
        settings.logTargets = logTargets
        settings.handshakeTimeout = handshakeTimeout
        let server: ProxyServer
        do {
            server = try ProxyServer(settings: settings, configuration: configuration) { io.log(ErrorHint.text($0)) }
        } catch {
            io.log("relayfetch: error: cannot listen on \(listen): \(error)")
            return 1
        }
        if let pidFile {
            do {
                try Data("\(getpid())\n".utf8).write(to: URL(fileURLWithPath: pidFile))
            } catch {
                io.log("relayfetch: error: cannot write the PID file \(pidFile): \(error.localizedDescription)")
                server.drain(timeout: 0)
                return 1
            }
        }
        io.log("relayfetch proxy: listening on \(listen)")
        await waitForSignals(server: server, io: io)
        server.drain(timeout: drainTimeout)
        if let pidFile { unlink(pidFile) }
        io.log("relayfetch proxy: stopped")
        return 0
    }

    /// Returns on SIGTERM or SIGINT; reloads the configuration on each SIGHUP meanwhile.
    private func waitForSignals(server: ProxyServer, io: CommandIO) async {
        let queue = DispatchQueue(label: "relayfetch.proxy.signals")
        let relay = relay
        let moreChains = moreChains
        let credentials = credentials
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            var sources: [DispatchSourceSignal] = []
            let once = OnceFlag()
            for number in [SIGTERM, SIGINT] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler {
                    guard once.take() else { return }
                    for source in sources { source.cancel() }
                    continuation.resume()
                }
                sources.append(source)
            }
            signal(SIGHUP, SIG_IGN)
            let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: queue)
            hangup.setEventHandler {
                // Profiles (named or installed) are read again; a file that no longer reads keeps
                // the running configuration.
                let reloaded = DispatchSemaphore(value: 0)
                Task {
                    do {
                        var relay = relay
                        try relay.rereadInstalledProfiles(for: "proxy")
                        let configuration = try await Self.sessionConfiguration([relay] + moreChains, warn: io.log)
                        server.reload(configuration: configuration, credentials: credentials)
                        io.log("relayfetch proxy: configuration reloaded")
                    } catch {
                        io.log("relayfetch proxy: reload failed, keeping the running configuration: \(ErrorHint.text(error))")
                    }
                    reloaded.signal()
                }
                reloaded.wait()
            }
            sources.append(hangup)
            for source in sources { source.resume() }
        }
    }

    /// What --check prints: where it would listen, who may log in, and each relay configuration.
    private func checkReport(_ configuration: Session.Configuration) -> String {
        var lines = ["proxy configuration is valid", "listen: \(listen)\(listen.isLoopback ? "" : " (remote clients allowed)")",
                     "logins: \(userCount == 0 ? "none (any local client)" : "\(userCount) user(s)")"]
        for (index, proxy) in configuration.proxyConfigurations.enumerated() {
            let hops = proxy.relayHops.map { $0.http2RelayEndpoint?.absoluteString ?? $0.http3RelayEndpoint?.absoluteString ?? "?" }
            var scope = proxy.matchDomains.isEmpty ? "every host" : "hosts in " + proxy.matchDomains.joined(separator: ", ")
            if !proxy.excludedDomains.isEmpty { scope += ", except " + proxy.excludedDomains.joined(separator: ", ") }
            lines.append("relays \(index + 1): \(hops.joined(separator: " -> ")) for \(scope)")
        }
        if configuration.relayChainPolicy != .firstMatch {
            lines.append("chains: the relay configurations form one pool; each connection fails over between those covering its host")
        }
        lines.append("other hosts: refused (never direct)")
        return lines.joined(separator: "\n")
    }
}

/// True once: the first of several signals ends the wait.
private final class OnceFlag: @unchecked Sendable {
    // @unchecked: `taken` is read and written only on the one serial signal queue.
    private var taken = false
    func take() -> Bool {
        defer { taken = true }
        return !taken
    }
}
