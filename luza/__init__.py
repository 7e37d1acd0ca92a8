"""luza: table tracker and automatic scorer for pyramid billiards."""

__version__ = "0.1.0"
