import Foundation

/// HTTP dates (RFC 9110 §5.6.7) read and written by hand. Reading accepts the three forms HTTP
/// allows (IMF-fixdate, RFC 850, asctime) and the cookie variants servers send (`dd-Mon-yyyy`, a
/// numeric zone), by the token rules of RFC 6265 §5.1.1; the weekday is not checked. Foundation's
/// `DateFormatter` did this before: it loads ICU's calendar and time-zone data on first use, which
/// was 6-7 MB of a streamed download's peak memory, and it traps on some non-ASCII text.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let dayNames = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1 Jan 1970 was a Thursday

    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count <= 64, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        var time: (Int, Int, Int)?, day: Int?, month: Int?, year: Int?, offset = 0
        var index = 0
        while index < bytes.count {
            guard !isDelimiter(bytes[index]) else { index += 1; continue }
            let start = index
            while index < bytes.count && !isDelimiter(bytes[index]) { index += 1 }
            let token = bytes[start..<index]
            let sign = start > 0 ? bytes[start - 1] : 0
            if time == nil, let parsed = timeOfDay(token) {
                time = parsed
            } else if time != nil, year != nil, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"),
                      token.count == 4, let zone = number(token) {
                // A numeric zone after the date and time: +hhmm east of UTC.
                offset = (zone / 100 * 3600 + zone % 100 * 60) * (sign == UInt8(ascii: "+") ? 1 : -1)
            } else if day == nil, (1...2).contains(token.count), let value = number(token) {
                day = value
            } else if month == nil, token.count >= 3,
                      let found = months.firstIndex(of: String(decoding: token.prefix(3), as: UTF8.self).lowercased()) {
                month = found + 1
            } else if year == nil, (2...4).contains(token.count), let value = number(token) {
                year = value < 70 && token.count == 2 ? value + 2000 : value < 100 && token.count == 2 ? value + 1900 : value
            }
        }
        guard let (hour, minute, second) = time, let day, let month, let year,
              (1...31).contains(day), year >= 1601, hour < 24, minute < 60, second < 61,
              day <= daysIn(month: month, year: year) else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset))
    }

    /// `date` in the preferred form (IMF-fixdate), as If-Range and Last-Modified carry it.
    static func format(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let inDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let weekday = dayNames[((days % 7) + 7) % 7]
        return "\(weekday), \(two(day)) \(monthNames[month - 1]) \(year) \(two(inDay / 3600)):\(two(inDay / 60 % 60)):\(two(inDay % 60)) GMT"
    }

    /// RFC 6265's delimiters: everything but letters, digits and ':'.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        !(byte >= 0x30 && byte <= 0x3A || byte >= 0x41 && byte <= 0x5A || byte >= 0x61 && byte <= 0x7A)
    }

    private static func number(_ token: ArraySlice<UInt8>) -> Int? {
        guard !token.isEmpty, token.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return token.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// hh:mm:ss (one or two digits each).
    private static func timeOfDay(_ token: ArraySlice<UInt8>) -> (Int, Int, Int)? {
        let parts = token.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ (1...2).contains($0.count) }),
              let hour = number(parts[0]), let minute = number(parts[1]), let second = number(parts[2]) else { return nil }
        return (hour, minute, second)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (the era arithmetic of H. Hinnant's
    /// public-domain `days_from_civil`).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse of `daysFromCivil`.
    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
