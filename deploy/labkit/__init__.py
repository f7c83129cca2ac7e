"""The several-host lab of ``deploy/lab.py`` (docs/deploy.md, "Several hosts"): hosts made of
Linux network namespaces on one machine, the processes each runs, the screens and feeders
that load it, and the failure scenarios.

- :mod:`labkit.net`: namespaces, veths, the bridge, partitions (``ip``);
- :mod:`labkit.hosts`: the topology, configs rendered from deploy/ templates, each host's
  processes, the lab's state file;
- :mod:`labkit.load`: feeders (HTTP, with failover and retries) and screens (``screens.js``:
  the pages' own ``static/js/push_socket.js`` and ``delta.js`` in Node);
- :mod:`labkit.scenarios`: the failure scenarios and their JSON line;
- :mod:`labkit.figures`: throughput, latency, bytes and CPU per host beside the Node ``ws`` floor.

Standard library only: it drives the service as processes, over HTTP and WebSockets.
"""
