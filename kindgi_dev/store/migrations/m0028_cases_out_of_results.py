"""A judged eval run's stored result keeps its summary only: each case's comparison is in
`eval_run_cases` already, and reading it from there a page at a time keeps a large run's
end and its reads from holding every case at once.

A result whose `per_case` does not match its stored cases in number keeps it here; m0045
moves those.
"""

SQL = """
UPDATE eval_runs SET result = json_remove(result, '$.per_case')
WHERE json_type(result, '$.per_case') = 'array'
  AND json_array_length(result, '$.per_case') =
      (SELECT count(*) FROM eval_run_cases c WHERE c.eval_run_id = eval_runs.run_id)
"""
