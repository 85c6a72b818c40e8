/// What a crawler reads from an HTML page: its base href (or, from `LinkExtractor`, the base URL
/// its links resolve against), its links as written, and the metas it was asked about (the
/// robots metas), name in lower case.
struct HTMLLinks {
    var base: String?
    var references: [String]
    var metas: [(name: String, content: String)]
}
