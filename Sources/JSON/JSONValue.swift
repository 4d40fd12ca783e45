import CJansson
