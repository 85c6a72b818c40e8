import Foundation
import XCTest
import HeadlessPage
import HTMLDOM

/// The form model and HTML's entry-list and encoding rules, on HTML strings.
final class HTMLFormTests: XCTestCase {
    private let url = URL(string: "https://origin.test/account/login?x=1")!

    private func forms(_ html: String) throws -> [HTMLForm] {
        let document = try XCTUnwrap(HTMLDocument(data: Data(html.utf8), url: url))
        return document.forms(documentURL: url)
    }

    private let kitchenSink = """
    <html><body>
    <form id="f" action="/submit" method="POST" enctype="multipart/form-data">
      <input type="hidden" name="csrf" value="tok">
      <label for="user">User name</label><input id="user" name="username" type="text" value="a
    b">
      <label>Password <input name="password" type="password"></label>
      <input name="email" type="email" value="  me@origin.test ">
      <input type="checkbox" name="remember" checked>
      <input type="checkbox" name="scope" value="openid" checked><input type="checkbox" name="scope" value="email">
      <input type="radio" name="color" value="red" checked><input type="radio" name="color" value="blue">
      <select name="one"><option>First  one</option><option value="2" selected>Two</option><option value="3" selected>Three</option></select>
      <select name="many" multiple><option value="a" selected>A</option><option value="b">B</option><option value="c" selected disabled>C</option></select>
      <select name="none"><option disabled>x</option><option value="y">y</option></select>
      <textarea name="note">
    line1
    line2</textarea>
      <input name="off" value="never" disabled>
      <fieldset disabled><legend><input name="inlegend" value="yes"></legend><input name="infieldset" value="no"></fieldset>
      <input value="unnamed">
      <input type="submit" name="action" value="Sign in">
      <button name="action" value="cancel" formaction="/cancel" formmethod="get">Cancel it</button>
      <button type="button" name="js" value="1">Script only</button>
      <input type="image" name="pic" alt="Go">
      <input type="hidden" name="_charset_">
    </form>
    <input name="outside" value="owned" form="f">
    <input name="stranger" value="unowned">
    <form id="g"><input name="q"></form>
    </body></html>
    """

    func testFormKnowsItsAttributesAndEveryControlInTreeOrder() throws {
        let all = try forms(kitchenSink)
        XCTAssertEqual(all.count, 2)
        let form = all[0]
        XCTAssertEqual(form.action.absoluteString, "https://origin.test/submit")
        XCTAssertEqual(form.method, "POST")
        XCTAssertEqual(form.enctype, .multipart)
        XCTAssertEqual(form.controls.map(\.name), [
            "csrf", "username", "password", "email", "remember", "scope", "scope", "color", "color", "one", "many", "none", "note",
            "off", "inlegend", "infieldset", "", "action", "action", "js", "pic", "_charset_", "outside",
        ])
        XCTAssertEqual(form.controls[1].labels, ["User name"])
        XCTAssertEqual(form.controls[1].value, "ab", "text inputs drop newlines")
        XCTAssertEqual(form.controls[2].labels, ["Password"])
        XCTAssertEqual(form.controls[3].value, "me@origin.test", "email inputs trim")
        XCTAssertEqual(form.controls[9].value, "3", "the last selected option of a single select wins")
        XCTAssertEqual(form.controls[11].value, "y", "a single select without selection picks its first enabled option")
        XCTAssertEqual(form.controls[12].value, "line1\nline2", "the newline after <textarea> is dropped")
        XCTAssertEqual(form.controls.filter(\.isDisabled).map(\.name), ["off", "infieldset"])
        XCTAssertEqual(form.submitters.map(\.text), ["Sign in", "Cancel it", "Go"])
        XCTAssertEqual(all[1].controls.map(\.name), ["q"])
        XCTAssertEqual(all[1].method, "GET")
        XCTAssertEqual(all[1].action, url, "no action: the document's URL")
    }

    func testEntryListFollowsHTML() throws {
        var form = try forms(kitchenSink)[0]
        try form.fill("User name", with: "alice")
        try form.fill("password", with: "s3cret&=")
        try form.fill("color", with: "blue")
        try form.fill("scope", with: "email")
        try form.setChecked("remember", false)
        try form.fill("one", with: "First one")
        let submitter = try form.submitter("Sign in")
        let entries = form.entryList(submitter: submitter)
        XCTAssertEqual(entries, [
            FormEntry("csrf", "tok"), FormEntry("username", "alice"), FormEntry("password", "s3cret&="),
            FormEntry("email", "me@origin.test"), FormEntry("scope", "openid"), FormEntry("scope", "email"),
            FormEntry("color", "blue"), FormEntry("one", "First one"), FormEntry("many", "a"), FormEntry("none", "y"),
            FormEntry("note", "line1\nline2"), FormEntry("inlegend", "yes"), FormEntry("action", "Sign in"),
            FormEntry("_charset_", "UTF-8"), FormEntry("outside", "owned"),
        ])
        let image = try form.submitter("pic")
        XCTAssertEqual(form.entryList(submitter: image).suffix(4).map(\.name), ["pic.x", "pic.y", "_charset_", "outside"])
        XCTAssertFalse(form.entryList().contains { $0.name == "action" }, "no submitter: no button value")
    }

    func testFillErrorsNameTheField() throws {
        var form = try forms(kitchenSink)[0]
        XCTAssertThrowsError(try form.fill("nope", with: "x")) { XCTAssertEqual($0 as? FormError, FormError(.noSuchField("nope"))) }
        XCTAssertThrowsError(try form.fill("off", with: "x"), "disabled fields cannot be filled")
        XCTAssertThrowsError(try form.fill("color", with: "green")) {
            XCTAssertEqual($0 as? FormError, FormError(.noSuchChoice(field: "color", value: "green")))
        }
        XCTAssertThrowsError(try form.submitter("Delete")) { XCTAssertTrue("\($0)".contains("\"Sign in\", \"Cancel it\", \"Go\"")) }
    }

    func testURLEncodedSerializerEscapesLikeBrowsers() {
        let body = FormBodyEncoder.urlEncoded([FormEntry("a b", "x+y&z=é*-._~!"), FormEntry("line", "1\n2\r3\r\n4")])
        XCTAssertEqual(body, "a+b=x%2By%26z%3D%C3%A9*-._%7E%21&line=1%0D%0A2%0D%0A3%0D%0A4")
    }

    func testMultipartBodyFollowsRFC7578AsHTMLUsesIt() {
        let file = FormFile(filename: "a\"b\n.txt", contentType: "text/plain", data: Data("hi\n".utf8))
        let body = FormBodyEncoder.multipart([FormEntry("na\"me", "v\nw"), FormEntry(name: "up", value: .file(file))], boundary: "BND")
        XCTAssertEqual(String(decoding: body, as: UTF8.self), """
        --BND\r\nContent-Disposition: form-data; name="na%22me"\r\n\r\nv\r\nw\r\n\
        --BND\r\nContent-Disposition: form-data; name="up"; filename="a%22b%0A.txt"\r\nContent-Type: text/plain\r\n\r\nhi\n\r\n\
        --BND--\r\n
        """)
    }

    func testSubmitterOverridesActionMethodAndEncoding() throws {
        var form = try forms(kitchenSink)[0]
        try form.fill("username", with: "bob")
        let post = try form.request(submitter: "Sign in", boundary: "XYZ")
        XCTAssertEqual(post.method, "POST")
        XCTAssertEqual(post.url.absoluteString, "https://origin.test/submit")
        XCTAssertEqual(post.headerFields.first { $0.name == "Content-Type" }?.value, "multipart/form-data; boundary=XYZ")
        XCTAssertTrue(String(decoding: post.body ?? Data(), as: UTF8.self).contains("name=\"username\"\r\n\r\nbob\r\n"))
        let get = try form.request(submitter: "Cancel it")
        XCTAssertEqual(get.method, "GET")
        XCTAssertNil(get.body)
        XCTAssertEqual(get.url.path, "/cancel")
        XCTAssertTrue(get.url.query!.hasPrefix("csrf=tok&username=bob&password=&email=me%40origin.test&remember=on"), get.url.query!)
        XCTAssertTrue(get.url.query!.contains("&action=cancel&"))
    }

    func testTextPlainAndDialogAndBadSchemes() throws {
        let html = """
        <form method=post enctype=TEXT/PLAIN action="/t"><input name=a value="1 2"><button>Go</button></form>
        <form method=dialog><input name=b></form>
        <form action="javascript:alert(1)"><input name=c></form>
        """
        let all = try forms(html)
        let plain = try all[0].request(submitter: "Go")
        XCTAssertEqual(String(decoding: plain.body ?? Data(), as: UTF8.self), "a=1 2\r\n")
        XCTAssertEqual(plain.headerFields.first?.value, "text/plain;charset=UTF-8")
        XCTAssertThrowsError(try all[1].request()) { XCTAssertEqual($0 as? FormError, FormError(.dialogMethod)) }
        XCTAssertThrowsError(try all[2].request()) { XCTAssertEqual($0 as? FormError, FormError(.unsupportedAction("javascript:alert(1)"))) }
    }

    func testRedirectURIMatchingIgnoresQueryOnly() {
        let policy = NavigationPolicy.intercepting(redirectURI: URL(string: "http://127.0.0.1:43111/callback")!)
        XCTAssertTrue(policy.shouldIntercept(URL(string: "http://127.0.0.1:43111/callback?code=1&state=2")!))
        XCTAssertFalse(policy.shouldIntercept(URL(string: "http://127.0.0.1:43112/callback?code=1")!))
        XCTAssertFalse(policy.shouldIntercept(URL(string: "http://127.0.0.1:43111/callback2")!))
        XCTAssertFalse(policy.shouldIntercept(URL(string: "https://origin.test/callback")!))
        XCTAssertTrue(policy.shouldIntercept(URL(string: "com.example.app:/callback?code=9")!), "other schemes are never requested")
        let custom = NavigationPolicy.intercepting(redirectURI: URL(string: "com.example.app:/callback")!)
        XCTAssertTrue(custom.shouldIntercept(URL(string: "com.example.app:/callback?code=9")!))
    }
}
