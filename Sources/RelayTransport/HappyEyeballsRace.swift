/// The bookkeeping of one race between a preferred attempt (QUIC) and a second one (TCP) that
/// starts later: the first success wins; a failure of the preferred one that allows a retry
/// waits for the second; when both fail, the second's error is the one reported (it names the
/// endpoint tried last). A success that arrives after the race is settled is closed. Loop thread only.
final class HappyEyeballsRace {
    private var completion: ((Result<TransportLayer, RelayError>) -> Void)?
    private var secondStarted = false
    private var secondFailure: RelayError?
    private var firstFailed = false

    init(completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        self.completion = completion
    }

    var isSettled: Bool { completion == nil }

    /// True the first time it is called: the caller starts the second attempt.
    func startSecond() -> Bool {
        guard !secondStarted, !isSettled else { return false }
        secondStarted = true
        return true
    }

    /// The preferred attempt ended; `retryable` failures leave the race to the second attempt.
    func firstFinished(_ result: Result<TransportLayer, RelayError>, retryable: Bool) {
        switch result {
        case .success: settle(result)
        case .failure where retryable:
            firstFailed = true
            if let secondFailure { settle(.failure(secondFailure)) }
        case .failure: settle(result)
        }
    }

    /// The second attempt ended.
    func secondFinished(_ result: Result<TransportLayer, RelayError>) {
        switch result {
        case .success: settle(result)
        case .failure(let error):
            if firstFailed { settle(result) } else { secondFailure = error }
        }
    }

    private func settle(_ result: Result<TransportLayer, RelayError>) {
        guard let completion else {
            if case .success(let late) = result { late.close() }  // the other side carries this tunnel
            return
        }
        self.completion = nil
        completion(result)
    }
}

extension RelayError.Cause {
    var isResolveFailure: Bool {
        if case .resolveFailed = self { return true }
        return false
    }
}
