"""Text primitives, the lowest layer above the records: tokens, stems and stopwords (`terms`), sentences with
spans (`sentences`), quantities with units (`quantities`, `quantity_spans`) and contradiction cues (`cues`).
Imports no other veriground package except `errors` and `schema`."""
