from marginalia.cli import main

main()
