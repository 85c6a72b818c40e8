internal import CLibXML2
import RelayFetch

extension LibraryVersions {
    /// The C libraries the page layer links (libxml2), as they report themselves at run time.
    public static var page: [(name: String, version: String)] {
        [("libxml2", String(cString: rf_libxml_dotted_version()))]
    }
}
