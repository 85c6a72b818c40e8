import Foundation
@testable import ObliviousHTTP

/// The examples of RFC 9292 Section 5, as hex dumps and as the messages they encode.
enum RFC9292Examples {
    /// Section 5.1, known-length encoding of the GET request.
    static let knownLengthRequest = Data(hex: """
        00034745 54056874 74707300 0a2f6865 6c6c6f2e 74787440 6c0a7573 65722d61
        67656e74 34637572 6c2f372e 31362e33 206c6962 6375726c 2f372e31 362e3320
        4f70656e 53534c2f 302e392e 376c207a 6c69622f 312e322e 3304686f 73740f77
        77772e65 78616d70 6c652e63 6f6d0f61 63636570 742d6c61 6e677561 67650665
        6e2c206d 690000
        """)

    /// Section 5.1, the same request with indeterminate-length encoding and 10 bytes of padding.
    static let indeterminateLengthRequest = Data(hex: """
        02034745 54056874 74707300 0a2f6865 6c6c6f2e 7478740a 75736572 2d616765
        6e743463 75726c2f 372e3136 2e33206c 69626375 726c2f37 2e31362e 33204f70
        656e5353 4c2f302e 392e376c 207a6c69 622f312e 322e3304 686f7374 0f777777
        2e657861 6d706c65 2e636f6d 0f616363 6570742d 6c616e67 75616765 06656e2c
        206d6900 00000000 00000000 00000000
        """)

    static let request = BinaryHTTPRequest(
        method: "GET", scheme: "https", authority: "", path: "/hello.txt",
        headerFields: [
            BinaryHTTPField(name: "user-agent", value: "curl/7.16.3 libcurl/7.16.3 OpenSSL/0.9.7l zlib/1.2.3"),
            BinaryHTTPField(name: "host", value: "www.example.com"),
            BinaryHTTPField(name: "accept-language", value: "en, mi"),
        ])

    /// Section 5.2, indeterminate-length response with 102 and 103 informational responses.
    static let indeterminateLengthResponse = Data(hex: """
        03406607 72756e6e 696e670a 22736c65 65702031 35220040 67046c69 6e6b233c
        2f737479 6c652e63 73733e3b 2072656c 3d707265 6c6f6164 3b206173 3d737479
        6c65046c 696e6b24 3c2f7363 72697074 2e6a733e 3b207265 6c3d7072 656c6f61
        643b2061 733d7363 72697074 0040c804 64617465 1d4d6f6e 2c203237 204a756c
        20323030 39203132 3a32383a 35332047 4d540673 65727665 72064170 61636865
        0d6c6173 742d6d6f 64696669 65641d57 65642c20 3232204a 756c2032 30303920
        31393a31 353a3536 20474d54 04657461 67142233 34616133 38372d64 2d313536
        38656230 30220d61 63636570 742d7261 6e676573 05627974 65730e63 6f6e7465
        6e742d6c 656e6774 68023531 04766172 790f4163 63657074 2d456e63 6f64696e
        670c636f 6e74656e 742d7479 70650a74 6578742f 706c6169 6e003348 656c6c6f
        20576f72 6c642120 4d792063 6f6e7465 6e742069 6e636c75 64657320 61207472
        61696c69 6e672043 524c462e 0d0a0000
        """)

    static let response = BinaryHTTPResponse(
        status: 200,
        headerFields: [
            BinaryHTTPField(name: "date", value: "Mon, 27 Jul 2009 12:28:53 GMT"),
            BinaryHTTPField(name: "server", value: "Apache"),
            BinaryHTTPField(name: "last-modified", value: "Wed, 22 Jul 2009 19:15:56 GMT"),
            BinaryHTTPField(name: "etag", value: "\"34aa387-d-1568eb00\""),
            BinaryHTTPField(name: "accept-ranges", value: "bytes"),
            BinaryHTTPField(name: "content-length", value: "51"),
            BinaryHTTPField(name: "vary", value: "Accept-Encoding"),
            BinaryHTTPField(name: "content-type", value: "text/plain"),
        ],
        content: Data("Hello World! My content includes a trailing CRLF.\r\n".utf8),
        informationalResponses: [
            .init(status: 102, headerFields: [BinaryHTTPField(name: "running", value: "\"sleep 15\"")]),
            .init(status: 103, headerFields: [
                BinaryHTTPField(name: "link", value: "</style.css>; rel=preload; as=style"),
                BinaryHTTPField(name: "link", value: "</script.js>; rel=preload; as=script"),
            ]),
        ])

    /// Section 5.2, the chunked response in known-length encoding, with a trailer.
    static let knownLengthChunkedResponse = Data(hex: """
        0140c800 1d546869 7320636f 6e74656e 7420636f 6e746169 6e732043 524c462e
        0d0a0d07 74726169 6c657204 74657874
        """)

    static let chunkedResponse = BinaryHTTPResponse(
        status: 200, content: Data("This content contains CRLF.\r\n".utf8),
        trailerFields: [BinaryHTTPField(name: "trailer", value: "text")])
}
