import { runShard } from '../helpers/shard.js'

await runShard(2, 4)
