"""aurora_course: the course's own tools, which no notebook imports.

The ``aurora`` command (:mod:`.cli`): run the course (:mod:`.runner`) and build its website
(:mod:`.site`), write student copies (:mod:`.student`) and grade them (:mod:`.grading`), the
workshop schedules (:mod:`.schedule`) and quick reference (:mod:`.quickref`), and the classroom
kit. Every tool reads course notebooks through one model (:mod:`.course_notebook`) and runs them
one way (:mod:`.execute`). It may import ``aurora_helpers`` (names and formats from
:mod:`aurora_helpers.contract`); ``aurora_helpers`` never imports it.
"""
