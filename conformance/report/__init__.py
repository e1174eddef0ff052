"""Results as data and the files made from them: results.json (schema-checked on reading), the HTML page
per product, JUnit XML, reproducer files, the certification bundle, traceability, byte maps, waivers, and
reading untrusted files safely.

May import: `oracle` and every layer below (`generate`, `backends`, `judge`, `supervise`); nothing here
runs a backend.
"""
