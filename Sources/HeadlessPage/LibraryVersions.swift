internal import CLibXML2

/// Versions of the C libraries the page layer links, as they report themselves at run time.
public enum LibraryVersions {
    public static var all: [(name: String, version: String)] {
        [("libxml2", String(cString: rf_libxml_dotted_version()))]
    }
}
