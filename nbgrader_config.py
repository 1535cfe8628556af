load_subconfig("grader_config.py")  # the whole configuration lives in grader_config.py
