extension GetCommand {
    static let help = """
    Usage: relayfetch get URL... [options]

    Fetch URLs through privacy relays and write each body to standard output as it arrives.
    The options below that curl has mean what they mean in curl 8, through relays, chains and
    Oblivious HTTP alike. Short options bundle as curl's do (-sSL, -XPOST).
    Redirects are followed by default (at most 20; curl needs -L for it): a 303, or a 301 or 302
    after a POST, becomes a GET without the body; a 307 or 308 keeps the method and body, but only
    to the same origin: one that would take them (or a method other than GET and HEAD) to
    another origin is not followed, and the redirect is the answer, unless --location-trusted.
    Credentials (-u, -H Authorization or Cookie) go to another origin only under --location-trusted.
    Nothing is written to disk unless -o is given. Any size streams in flat memory; a slow reader
    slows the relays rather than growing memory. No time limit applies unless --max-time is given:
    --idle-timeout ends a transfer that stalls.

    Request:
      -X, --request METHOD     the method to send (GET, POST, PATCH...): replaces the one the other
                               options choose, as curl's does
      -H, --header 'N: v'      extra request header sent to the origin (repeatable)
      -d, --data DATA          send DATA with POST as application/x-www-form-urlencoded; @FILE
                               reads FILE without its line breaks (@- standard input); several
                               -d are joined by &
      --data-ascii DATA        the same as -d
      --data-binary DATA       as -d, but @FILE is sent as it is
      --data-raw DATA          as -d, but @ is just a character
      --data-urlencode DATA    as -d, URL-encoded: content, =content, name=content, @FILE or
                               name@FILE
      --json DATA              send DATA (@FILE, @-) with POST as application/json, and ask for
                               application/json back; several --json are concatenated
      -F, --form name=CONTENT  send a multipart/form-data POST; CONTENT is text, @FILE (uploaded,
                               streamed) or <FILE (a text field from FILE), with ;type=TYPE and
                               ;filename=NAME after it; repeatable
      --form-string name=TEXT  as -F, but TEXT is taken as it is (no @FILE, <FILE or ;type=)
      -T, --upload-file FILE   send FILE (- or . for standard input) with PUT, streamed: any
                               size, read no faster than the relays take it; a URL ending in /
                               gets FILE's name. Through Oblivious HTTP a body is one sealed
                               message: it is read whole (up to 50 MiB)
      -G, --get                put the -d data into the URL's query and send a GET
      -I, --head               send HEAD and print the response's status line and header fields
      -A, --user-agent TEXT    the User-Agent field (default relayfetch/0.1)
      -u, --user USER:PASSWORD HTTP Basic authentication (no prompt: give the password)
      -e, --referer URL        the Referer field; "URL;auto" (or ";auto") also sets it on each
                               followed redirect to the URL redirected from
      -r, --range RANGES       ask for bytes RANGES only (0-499, 500-, -500, 0-1,5-9)
      --compressed             accepted as curl's: gzip, deflate, brotli and zstd answers are
                               always asked for and decoded (not on a -r request, and not inside
                               Oblivious HTTP, where the origin's answer comes as it was sent)
      -L, --location           follow redirects (the default)
      --no-location            do not follow redirects: a redirect is the answer
      --max-redirs N           fail after following N redirects (default 20; -1: no limit)
      --location-trusted       let a redirect take the method, body and credentials to another origin
      --post301                keep a POST a POST (with its body) after a 301
      --post302                keep a POST a POST (with its body) after a 302
      --post303                keep a POST a POST (with its body) after a 303
      --url URL                a URL to fetch, as one given alone (handy in -K files)
      -K, --config FILE        read options from FILE in curl's config syntax (- for standard
                               input): one per line, dashes optional, "url = URL" for a URL

    Output:
      -o, --output FILE        write the body to FILE instead of standard output (one -o per URL,
                               in order): written under no name (or a temporary one) next to FILE
                               and renamed to FILE once complete, so a failed transfer leaves no
                               partial file
      -O, --remote-name        write the body to a file in the current folder named as the URL's
                               last path segment (as it is, no decoding; not with -o for the same
                               URL); a URL without one (ending in /) is refused
      --remote-name-all        -O for every URL that has no -o or -O of its own
      -C, --continue -         resume: ask for the rest of FILE (-o) with Range, validated with
                               If-Range against the strong ETag FILE was saved with (extended
                               attribute user.relayfetch.etag), else FILE's time (its
                               Last-Modified); a changed resource comes back whole. Any answer but
                               206 or 2xx leaves FILE as it was and fails. A connection lost
                               mid-file is resumed the same way (up to 5 tries while bytes arrive)
      --max-filesize BYTES     fail when the body is larger (suffix K, M, G or T for KiB ... TiB);
                               under -C -, when the whole file would be; no partial file is left,
                               unless --keep-partial
      --keep-partial           on failure keep what arrived in FILE, with the response's
                               Last-Modified as its time, for a later -C -
      -i, --include            print the response status line and headers before the body
      -f, --fail               exit 1 when the server answers with a status of 400 or more,
                               writing nothing (FILE stays as it was)
      -w, --write-out FORMAT   print FORMAT after each transfer (@FILE reads it from FILE), with
                               \\n, \\t, %% and curl's variables: %{http_code} %{response_code}
                               %{http_version} %{method} %{url} %{url_effective} %{redirect_url}
                               %{num_redirects} %{num_retries} %{num_headers} %{content_type}
                               %{size_download} %{size_header} %{size_upload} %{speed_download}
                               %{speed_upload} %{time_namelookup} %{time_connect}
                               %{time_appconnect} %{time_pretransfer} %{time_starttransfer}
                               %{time_total} (the last exchange's phases; the total is the URL's)
                               %{scheme} %{exitcode} %{errormsg} %{filename_effective} %{urlnum},
                               %{relay_chain} (the relays, nearest first, or "direct"), %{json}
                               (all of them), %header{NAME}; %{stderr} and %{stdout} switch
                               where the rest goes
      -s, --silent             no progress meter, no error messages (the exit status says)
      -S, --show-error         with -s, still print error messages
      -#, --progress-bar       show progress as a bar instead of the meter
                               (either shows only when standard error is a terminal, and the
                               body does not go to that terminal; with -Z one line for all
                               transfers: bytes, speed, transfers done and running)
      -v, --verbose            print the route, each hop's connect time and the exchange to stderr
      -h, --help               show this help

    Several URLs:
      -Z, --parallel           fetch the URLs at once on one session (its relay connections
                               shared); bodies for standard output are each held whole (up to
                               --max-filesize, else 50 MiB) and written in the URLs' order
      --parallel-max N         at most N at once (default 50, at most 300)
      Without -Z, the URLs are fetched one after the other on one session.

    Retries:
      --retry N                try a transient failure again up to N times: a timeout, or HTTP
                               408, 429, 500, 502, 503 or 504; waits 1 s, doubling up to 10
                               minutes, or a longer Retry-After. Not after body bytes went to
                               standard output, nor for a body read from a pipe
      --retry-delay SECS       wait SECS between tries instead
      --retry-max-time SECS    start no retry SECS after the first try (nor one whose Retry-After
                               would end later)
      --retry-connrefused      also retry when a relay refuses the connection
      --retry-all-errors       retry on any error
    Relay options:
    \(RelayOptions.help(maximumTimeDefault: "none", allowsDirect: true))

    Exit status: 0 success, 1 failure (the error names the failing hop), 2 bad usage.
    Examples:
      relayfetch get https://origin.test/ --relay https://127.0.0.11:3129 \\
          --relay-header 'Proxy-Authorization: Bearer TOKEN' --relay-cacert ca.pem --cacert ca.pem
      relayfetch get https://api.test/items --json '{"name":"x"}' -w '%{http_code}\\n' \\
          --ohttp-relay https://relay.test/ohttp --ohttp-keys keys.bin
    """
}
