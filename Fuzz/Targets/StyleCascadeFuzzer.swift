import Foundation
@testable import HTMLDOM
@testable import CSSStyle

/// The input as a style sheet applied to a fixed document (parser, @media/@supports, selector
/// engine, cascade, font matching), and as a selector, a media query, a srcset with sizes and a
/// property value. Every URL the cascade asks for is absolute http(s) without a fragment.
@_cdecl("LLVMFuzzerTestOneInput")
public func styleCascadeFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let base = URL(string: "https://origin.test/css/site.css")!
    let viewport = Viewport()
    let media = MediaQuery(viewport: viewport)
    let sheet = StyleSheet(parsing: text, media: media)
    let needs = StyleResolver(sheets: [StyleResolver.Sheet(sheet: sheet, base: base)], viewport: viewport)
        .needs(of: document, baseURL: URL(string: "https://origin.test/page.html")!)
    for need in needs.images + needs.fonts {
        let scheme = need.url.scheme?.lowercased()
        fuzzCheck(scheme == "http" || scheme == "https", "non-http URL \(need.url)")
        fuzzCheck(need.url.fragment == nil, "URL with a fragment \(need.url)")
    }
    _ = SelectorList(text).map { $0.matches(0, in: snapshot) }
    _ = media.matches(text)
    _ = SupportsCondition.matches(text)
    _ = ImageCandidates.pick(srcset: text, sizes: text, src: "a.png", media: media)
    _ = CSSValue.imageURLs(text, devicePixelRatio: 2)
    _ = CSSValue.families(text)
    _ = FontShorthand(text)
    return 0
}

private let document = HTMLDocument(data: Data("""
    <html lang="en"><head><style>p { color: red }</style></head><body class="a b" id="top">
    <div class="box"><p class="note">one <b>two</b> <i>three</i></p><span hidden>x</span><ul><li>a</li><li class="b">b</li></ul></div>
    <form><input type="text" placeholder="q"><input type="submit"><button>go</button><select><option>o</option></select></form>
    <section><h2>t</h2><p>after</p><img src="i.png" alt=""><a href="/x">x</a></section><pre><code>code</code></pre>
    </body></html>
    """.utf8), url: URL(string: "https://origin.test/page.html")!)!
private let snapshot = DocumentSnapshot(document)
