"""Card-reading shoe adapters: run beside a table (on the table PC), read what the shoe sends,
and post it through the service's HTTP feed, with a durable local spool in between.

One module per shoe protocol (:mod:`shoes.angel_eye`, :mod:`shoes.line_scanner`,
:mod:`shoes.one_card_http`), each declaring a :class:`shoes.plugins.ShoeType` in the
``roads.shoes`` entry-point group; the parts they share: the round follower that turns shoe
events into feed messages by the tableau (:mod:`shoes.deal`), the spool (:mod:`shoes.spool`),
the feed sender (:mod:`shoes.sender`), the serial port (:mod:`shoes.serial_port`), recorded
byte streams (:mod:`shoes.recording`) and the ``roads shoe`` commands (:mod:`shoes.cli`).

No Flask here: an adapter is a client of the feed, like ``roads replay`` (docs/shoes.md).
"""
