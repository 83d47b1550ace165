"""lit helpers of the seqpar test suite (imported by lit.local.cfg files; a
module, not config code, so lit's worker processes can unpickle them)."""
import lit.formats
import lit.Test


class Unsupported(lit.formats.ShTest):
    """Reports every test UNSUPPORTED (counted as skipped) with a reason."""

    def __init__(self, reason):
        super().__init__()
        self.reason = reason

    def execute(self, test, litConfig):
        return lit.Test.Result(lit.Test.UNSUPPORTED, self.reason)
