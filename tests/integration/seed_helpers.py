"""Shared by the seed-example tests (test_seed_*.py): every runnable example of the
seed articles (../shared/seeds/000..004), in document order, through the real server
and the Python client. See test_seed_000_001.py for what the tests check and which
parts of the articles are outside graphd's subset."""

import numpy as np


def S(value):
    """A string tensor argument (tf.constant("...") on the client)."""
    return np.array(value, dtype=object)


def load(client, source, filename):
    return client.load_module(source, filename=filename)


# Seed 003's first cell (003:30): the assert_raises helper the article's later cells wrap
# expected errors in. It is a generator-based context manager (contextlib), outside
# graphd's subset (test_003_l030 checks that it is rejected); the scripts below start with the
# rest of that cell, PREAMBLE_003, and the errors are checked through the client.
ASSERT_RAISES = '''from __future__ import absolute_import, division, print_function, unicode_literals

import tensorflow as tf

import contextlib

# Some helper code to demonstrate the kinds of errors you might encounter.
@contextlib.contextmanager
def assert_raises(error_class):
  try:
    yield
  except error_class as e:
    print('Caught expected exception \\n  {}: {}'.format(error_class, e))
  except Exception as e:
    print('Got unexpected exception \\n  {}: {}'.format(type(e), e))
  else:
    raise Exception('Expected {} to be raised but no error was raised!'.format(
        error_class))
'''

PREAMBLE_003 = '''from __future__ import absolute_import, division, print_function, unicode_literals

import tensorflow as tf
'''


