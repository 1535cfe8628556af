"""How the course's own hub services (the exchange, the lab view) serve: as the course user, at
the address the hub gives them, until the hub stops them."""

import logging
import os
import urllib.parse

from tornado import httpserver, ioloop


def serve(application, name, max_body_size, body_timeout, idle_timeout=60):
    """Serve application at JUPYTERHUB_SERVICE_URL, refusing to run as root; bodies of at most
    max_body_size bytes, each given body_timeout seconds to arrive; a connection that sends
    nothing for idle_timeout seconds is closed."""
    if os.geteuid() == 0:
        raise SystemExit(f"the {name} service runs as the course user, never as root")
    logging.basicConfig(
        level=logging.INFO, format=f"[%(levelname)s %(asctime)s {name}] %(message)s"
    )
    address = urllib.parse.urlsplit(os.environ["JUPYTERHUB_SERVICE_URL"])
    server = httpserver.HTTPServer(
        application,
        max_body_size=max_body_size,
        idle_connection_timeout=idle_timeout,
        body_timeout=body_timeout,
    )
    server.listen(address.port, address.hostname)
    try:
        ioloop.IOLoop.current().start()
    except KeyboardInterrupt:  # the hub stopping it
        pass
