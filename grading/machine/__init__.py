"""What the grading machine needs: Debian packages (system), the course's interpreter
(interpreter), and the unprivileged course user that grades in root's place (course_user)."""
