"""A server that is down in the way a crashed service is: it accepts each TCP connection, logs
"CONNECTION<TAB>peer address", and closes it at once (no TLS, no HTTP). Tests point an identity
provider's endpoints here and read the log to see who tried to reach it."""
import hostile_common as common

args = common.arguments("accepts and closes")
log = common.EventLog(args.log)


def handle(conn, address):
    log("CONNECTION", address[0])
    conn.close()


common.serve(args, handle)
