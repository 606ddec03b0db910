"""One module per workload, each turning that workload's rows from every file into
a section of the report: `render(entries) -> html`."""
