# zsh -f zsh-complete.zsh FPATH_DIR 'command line': prints the matches zsh's own completion
# system offers for the end of the line, one a line (duplicates possible), as InstallTests reads
# them: an interactive zsh on a pseudo-terminal runs compinit with FPATH_DIR first on fpath, a
# wrapper around compadd prints each match it is given, and a TAB is typed after the line.
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PROMPT=''; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D"
# The marker is typed split in two, so the terminal's echo of this line never matches it.
zpty -w z 'compadd() { local -a hits; builtin compadd -O hits "$@"; (( $#hits )) && print -rl -- ${hits/#/MA""TCH:}; builtin compadd "$@" }'
zpty -w z 'comppostfuncs=(exit)'
zpty -w z "$2"$'\t'
local line
while zpty -r z line; do
    [[ $line == *MATCH:* ]] && print -r -- ${${line##*MATCH:}%%$'\r'*}
done
exit 0
