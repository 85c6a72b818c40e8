#!/usr/bin/env python3
"""A hostile OAuth device authorization endpoint (RFC 8628) for HostileDeviceFlowTests: plain
HTTP/1.1, keep-alive. Logs "REQUEST<TAB>unix time<TAB>method<TAB>path" per request.

  POST /device   200 with a device code whose "interval" and "expires_in" are the JSON text of
                 --interval and --expires-in, as given (so any number a provider could send)
  POST /token    200 with an access token (token_type Bearer)
  anything else  404
"""
import json
import time

import hostile_common as common


def extra(parser):
    parser.add_argument("--interval", default="5")
    parser.add_argument("--expires-in", default="600")


args = common.arguments("hostile device authorization endpoint", extra)
log = common.EventLog(args.log)


def respond(conn, status, body):
    conn.sendall(b"HTTP/1.1 %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (status, len(body)) + body)


def handle(conn, address):
    for head, _ in common.requests(conn):
        lines = head.split("\r\n")
        method, target = (lines[0].split(" ") + ["", ""])[:2]
        path = target.split("?", 1)[0]
        log("REQUEST", "%.3f" % time.time(), method, path)
        host = next((line.split(":", 1)[1].strip() for line in lines[1:] if line.lower().startswith("host:")), args.host)
        if method == "POST" and path == "/device":
            body = ('{"device_code": "device-code", "user_code": "USER-CODE", "verification_uri": %s, '
                    '"interval": %s, "expires_in": %s}' % (json.dumps("http://%s/verify" % host), args.interval, args.expires_in))
            respond(conn, b"200 OK", body.encode())
        elif method == "POST" and path == "/token":
            respond(conn, b"200 OK", b'{"access_token": "access-token", "token_type": "Bearer"}')
        else:
            respond(conn, b"404 Not Found", b'{"error": "not_found"}')


common.serve(args, handle)
